/**
 * A stand-in for Electron's `net.request` (ClientRequest) over Node's fetch, for the
 * composition-root tests that mock `electron`: it emits `response` with an IncomingMessage-like
 * stream, or `redirect` for a 3xx (redirect: 'manual'), as Electron does. No proxy here;
 * net-request-fetch.test.ts covers the sign-in through a real proxy.
 */
import { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';

export function netRequestOverFetch(seen: (url: string) => void = () => undefined) {
  return (options: { url: string; method?: string }) => {
    const emitter = new EventEmitter();
    const headers: Record<string, string> = {};
    const controller = new AbortController();
    let body = '';
    const send = async (): Promise<void> => {
      seen(options.url);
      const response = await fetch(options.url, {
        method: options.method ?? 'GET',
        headers,
        redirect: 'manual',
        signal: controller.signal,
        ...(body === '' ? {} : { body }),
      });
      const raw: Record<string, string[]> = {};
      response.headers.forEach((value, name) => (raw[name] = [value]));
      if (response.status >= 300 && response.status < 400) {
        emitter.emit('redirect', response.status, 'GET', response.headers.get('location'), raw);
        return;
      }
      const stream =
        response.body === null
          ? Readable.from([])
          : Readable.fromWeb(response.body as NodeReadableStream);
      emitter.emit(
        'response',
        Object.assign(stream, {
          statusCode: response.status,
          statusMessage: response.statusText,
          headers: raw,
        }),
      );
    };
    return {
      on(event: string, listener: (...args: unknown[]) => void) {
        emitter.on(event, listener);
        return this;
      },
      setHeader: (name: string, value: string) => {
        headers[name] = value;
      },
      write: (chunk: string) => {
        body += chunk;
      },
      end: () => {
        send().catch((error: unknown) => emitter.emit('error', error));
      },
      abort: () => controller.abort(),
    };
  };
}
