/**
 * The Fetcher port over got: one GET, no automatic redirects, retries or decompression (the
 * core decides all of those), connect timeouts from the limits. Body bytes stream through
 * as they arrive; nothing is buffered here.
 */
import got, { RequestError } from 'got';
import { UpdateError } from '../core/errors.js';
import type { Fetcher, FetchResponse } from '../core/ports.js';
import { safeUrl } from '../core/safe-url.js';

export interface GotFetcherOptions {
  readonly connectTimeoutMs: number;
}

/** A failed request as NETWORK, naming the URL (without its query) and the errno code. */
function networkError(error: unknown, url: string): UpdateError {
  if (error instanceof UpdateError) return error;
  if (error instanceof RequestError && error.name === 'AbortError') {
    return new UpdateError('ABORTED', 'request aborted', { cause: error });
  }
  const code = error instanceof RequestError ? error.code : 'ERR';
  const message = error instanceof Error ? error.message : 'request failed';
  return new UpdateError('NETWORK', `${code}: ${message}`, {
    cause: error,
    transient: true,
    details: { url: safeUrl(url), errno: code },
  });
}

/** Builds a got-based Fetcher. */
export function createGotFetcher(options: GotFetcherOptions): Fetcher {
  const client = got.extend({
    throwHttpErrors: false,
    followRedirect: false,
    decompress: false,
    retry: { limit: 0 },
    timeout: {
      lookup: options.connectTimeoutMs,
      connect: options.connectTimeoutMs,
      secureConnect: options.connectTimeoutMs,
    },
  });
  return {
    get(url, init) {
      return new Promise<FetchResponse>((resolve, reject) => {
        const stream = client.stream(url, { headers: { ...init.headers }, signal: init.signal });
        const onError = (error: unknown): void => reject(networkError(error, url));
        stream.once('error', onError);
        stream.once(
          'response',
          (response: { statusCode: number; headers: NodeJS.Dict<string | string[]> }) => {
            stream.off('error', onError);
            // Later errors surface while the body is iterated.
            stream.on('error', () => undefined);
            // got streams are not auto-destroyed, and only destroy() removes got's listener
            // on init.signal: without this, every completed request stayed reachable from
            // the run's signal (src/core/linked-abort.ts).
            stream.once('end', () => stream.destroy());
            resolve({
              status: response.statusCode,
              header(name) {
                const value = response.headers[name.toLowerCase()];
                return Array.isArray(value) ? value[0] : value;
              },
              body: stream as AsyncIterable<Uint8Array>,
              discard: () => stream.destroy(),
            });
          },
        );
      });
    },
  };
}
