/**
 * The Fetcher port straight over `node:http` / `node:https` and their global keep-alive agents
 * (what got used underneath): one GET, no redirect followed, no status an error, no
 * decompression, the body streamed as it arrives. Everything else a download needs (size cap,
 * redirect policy, stall and drip-feed watch, retries, error codes) lives in the core
 * (src/core/http-get.ts), so this adapter only adds the connect timeout and error mapping.
 *
 * Why not got: its per-request machinery (options merging, hooks, its own stream wrapper) cost
 * more CPU than the request itself for small artifacts (docs/UPDATER.md §8, "Many small
 * artifacts").
 */
import type { ClientRequest, IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { UpdateError } from '../core/errors.js';
import type { Fetcher, FetchResponse } from '../core/ports.js';
import { safeUrl } from '../core/safe-url.js';

export interface HttpFetcherOptions {
  /** Longest wait for a connection: DNS lookup, TCP connect and TLS handshake together. */
  readonly connectTimeoutMs: number;
}

/** A failed request as NETWORK (or ABORTED), naming the URL (without its query) and errno. */
function networkError(error: unknown, url: string, signal: AbortSignal): UpdateError {
  if (error instanceof UpdateError) return error;
  if (signal.aborted) return new UpdateError('ABORTED', 'request aborted', { cause: error });
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? 'ERR';
  const message = error instanceof Error ? error.message : 'request failed';
  return new UpdateError('NETWORK', `${code}: ${message}`, {
    cause: error,
    transient: true,
    details: { url: safeUrl(url), errno: code },
  });
}

/**
 * Destroys `request` unless its socket is connected (TLS included) within `ms`. Armed when
 * the agent hands over a new socket (before its lookup and connect start); a kept-alive one is
 * connected already, so most requests of a pull arm no timer at all.
 */
function connectDeadline(request: ClientRequest, secure: boolean, ms: number): () => void {
  let timer: NodeJS.Timeout | undefined;
  const clear = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  request.once('socket', (socket: Socket) => {
    if (request.reusedSocket || request.destroyed) return;
    timer = setTimeout(() => {
      const error = new Error(`no connection within ${ms} ms`) as NodeJS.ErrnoException;
      error.code = 'ETIMEDOUT';
      request.destroy(error);
    }, ms);
    socket.once(secure ? 'secureConnect' : 'connect', clear);
  });
  return clear;
}

/** Builds a Fetcher over node:http(s). */
export function createHttpFetcher(options: HttpFetcherOptions): Fetcher {
  return {
    get(url, init) {
      return new Promise<FetchResponse>((resolve, reject) => {
        let target: URL;
        try {
          target = new URL(url);
        } catch (error) {
          reject(networkError(error, url, init.signal));
          return;
        }
        const secure = target.protocol === 'https:';
        if (!secure && target.protocol !== 'http:') {
          reject(new UpdateError('NETWORK', `unsupported protocol ${target.protocol}`));
          return;
        }
        const request = (secure ? httpsRequest : httpRequest)(target, {
          method: 'GET',
          headers: { ...init.headers },
          signal: init.signal,
        });
        const clear = connectDeadline(request, secure, options.connectTimeoutMs);
        const onError = (error: unknown): void => {
          clear();
          reject(networkError(error, url, init.signal));
        };
        request.once('error', onError);
        request.once('response', (response: IncomingMessage) => {
          clear();
          request.off('error', onError);
          // Later errors surface while the body is iterated; one that comes while nobody
          // reads it (an abort after discard(), between reads) must not go uncaught.
          request.on('error', () => undefined);
          response.on('error', () => undefined);
          resolve({
            status: response.statusCode ?? 0,
            header(name) {
              const value = response.headers[name.toLowerCase()];
              return Array.isArray(value) ? value[0] : value;
            },
            body: bodyOf(request, response, url, init.signal),
            // The request, not only the response: that is what closes the socket at once.
            discard: () => request.destroy(),
          });
        });
        request.end();
      });
    },
  };
}

/** The response's chunks; a broken connection becomes NETWORK (or ABORTED). */
async function* bodyOf(
  request: ClientRequest,
  response: IncomingMessage,
  url: string,
  signal: AbortSignal,
): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of response) yield chunk as Buffer;
  } catch (error) {
    throw networkError(error, url, signal);
  } finally {
    // Left early (the core stopped at the signed size, or threw): drop the rest.
    if (!response.complete) request.destroy();
  }
}
