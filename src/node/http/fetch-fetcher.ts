/**
 * The Fetcher port (src/core/ports.ts) over any WHATWG `fetch`-like function: in the tray app
 * that is Electron's `net.fetch` (src/main/net-fetcher.ts), so every request of the core goes
 * through Chromium's network stack with the system proxy, PAC, proxy authentication and the
 * OS certificate store (docs/DESKTOP.md "Network"). Electron-free: the function is injected.
 *
 * As the node:http fetcher (http-fetcher.ts): one GET, no redirect followed (`redirect: 'manual'`; the core alone
 * decides where the machine key may go), no status is an error, the body streamed as it
 * arrives and never buffered here; network failures are UpdateErrors (NETWORK, ABORTED).
 *
 * `acceptGzip` (docs/PROTOCOL.md §2.7.6, Content coding): fetch() inflates a gzip answer itself,
 * as a stream the reader pulls, so the adapter only asks for it and says so (`inflated`); its
 * wire bytes are not visible here, so the core's watches count the inflated ones.
 */
import { UpdateError } from '#core/errors.js';
import type { Fetcher, FetchResponse } from '#core/ports.js';
import { isGzipCoding } from '#core/transfer/index.js';
import { isZlibError } from './gzip-body.js';

/** A session's fetch as the app holds it (global fetch, Electron's net.fetch). */
export type SessionFetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * The slice of `fetch` the adapter uses (global fetch, Electron's net.fetch, a test's). Like
 * fetch(), it must hand back a gzip-coded body inflated (`acceptGzip`); one that does not gets
 * its answer refused by verification, never trusted.
 */
export type FetchLike = (
  url: string,
  init: {
    readonly method: 'GET';
    readonly headers: Record<string, string>;
    readonly redirect: 'manual';
    readonly signal: AbortSignal;
  },
) => Promise<Response>;

export interface FetchFetcherOptions {
  readonly fetch: FetchLike;
  /**
   * Longest wait for the response head. fetch() has no connect timeout of its own; this
   * bounds connect, TLS, a proxy's CONNECT and the server's first answer together (the body
   * then has the core's stall watch).
   */
  readonly headersTimeoutMs: number;
}

/** The error a failed request or body read becomes. */
export function fetchError(error: unknown, signal: AbortSignal): UpdateError {
  if (error instanceof UpdateError) return error;
  if (signal.aborted) return new UpdateError('ABORTED', 'request aborted', { cause: error });
  const message = error instanceof Error ? error.message : 'request failed';
  // undici and Chromium's net put the reason (ECONNREFUSED, net::ERR_PROXY_…) in the cause.
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const detail =
    typeof cause?.code === 'string'
      ? `${cause.code}: `
      : typeof cause?.message === 'string'
        ? `${cause.message}: `
        : '';
  return new UpdateError('NETWORK', `${detail}${message}`, { cause: error, transient: true });
}

/** Iterates a web stream's chunks, mapping a broken read to an UpdateError. */
async function* chunks(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  signal: AbortSignal,
  inflated: boolean,
): AsyncGenerator<Uint8Array> {
  try {
    for (;;) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (error) {
        if (inflated && !signal.aborted && isZlibError(error)) {
          throw new UpdateError('CONTENT_ENCODING', 'gzip answer does not inflate', {
            cause: error,
            transient: true,
          });
        }
        throw fetchError(error, signal);
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // Left early (the core stopped at the signed size, or threw): drop the rest.
    reader.cancel().catch(() => undefined);
  }
}

/** Builds a Fetcher that sends every request through `options.fetch`. */
export function createFetchFetcher(options: FetchFetcherOptions): Fetcher {
  return {
    async get(url, init): Promise<FetchResponse> {
      // One controller per request: the caller's abort, our head timeout and discard().
      const controller = new AbortController();
      const abort = (): void => controller.abort(init.signal.reason);
      if (init.signal.aborted) abort();
      init.signal.addEventListener('abort', abort, { once: true });
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, options.headersTimeoutMs);
      let response: Response;
      try {
        const headers = { ...init.headers };
        if (init.acceptGzip === true) headers['accept-encoding'] = 'gzip';
        response = await options.fetch(url, {
          method: 'GET',
          headers,
          redirect: 'manual',
          signal: controller.signal,
        });
      } catch (error) {
        init.signal.removeEventListener('abort', abort);
        if (timedOut && !init.signal.aborted) {
          throw new UpdateError('NETWORK', `no answer within ${options.headersTimeoutMs} ms`, {
            cause: error,
            transient: true,
          });
        }
        throw fetchError(error, init.signal);
      } finally {
        clearTimeout(timer);
      }
      const reader = response.body?.getReader();
      const release = (): void => init.signal.removeEventListener('abort', abort);
      const inflated =
        init.acceptGzip === true &&
        isGzipCoding(response.headers.get('content-encoding') ?? undefined);
      return {
        status: response.status,
        header: (name) => response.headers.get(name) ?? undefined,
        ...(inflated ? { inflated } : {}),
        body: (async function* () {
          try {
            if (reader !== undefined) yield* chunks(reader, init.signal, inflated);
          } finally {
            release();
          }
        })(),
        discard: () => {
          release();
          controller.abort();
          reader?.cancel().catch(() => undefined);
        },
      };
    },
  };
}
