/**
 * One GET through an undici dispatcher with a handler of our own (undici's `dispatch`), not
 * its `request()`: request() wraps every body in a Readable stream, and reading that through
 * its async iterator cost a small artifact more CPU than the request, while the stream's
 * buffered chunks, kept alive across young-generation GCs, held peak RSS of a pull past
 * 100 MB (docs/UPDATER.md §8, One HTTP stack). Here undici's parser hands each body chunk to
 * a PushedBody (pushed-body.ts), which gives it straight to a waiting reader and pauses the
 * connection past 64 KiB held. Nothing here parses HTTP: undici frames the answer.
 */
import type { Dispatcher } from 'undici';
import { UpdateError } from '#core/errors.js';
import { networkError } from './network-error.js';
import { PushedBody } from './pushed-body.js';

export interface ExchangeHead {
  readonly status: number;
  readonly header: (name: string) => string | undefined;
  readonly body: PushedBody;
  /** Drops the rest of the body and the connection. */
  readonly discard: () => void;
}

/** `name: value` pairs from undici's raw header list, lower-case names, repeats joined. */
function headerTable(raw: readonly Buffer[]): Map<string, string> {
  const table = new Map<string, string>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as Buffer).toString('latin1').toLowerCase();
    const value = (raw[i + 1] as Buffer).toString('latin1');
    const known = table.get(name);
    table.set(name, known === undefined ? value : `${known}, ${value}`);
  }
  return table;
}

/** Sends `options` (a GET) through `dispatcher`; resolves at the answer's head. */
export function exchange(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  url: string,
  signal: AbortSignal,
): Promise<ExchangeHead> {
  return new Promise<ExchangeHead>((resolve, reject) => {
    let abort: ((error?: Error) => void) | undefined;
    let resume: (() => void) | undefined;
    let paused = false;
    let body: PushedBody | undefined;
    let settled = false;
    const onAbort = (): void => abort?.(new UpdateError('ABORTED', 'request aborted'));
    const done = (): void => {
      settled = true;
      signal.removeEventListener('abort', onAbort);
    };
    if (signal.aborted) {
      reject(new UpdateError('ABORTED', 'request aborted'));
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    const handler: Dispatcher.DispatchHandler = {
      onConnect(abortRequest) {
        abort = abortRequest;
        if (signal.aborted) onAbort();
      },
      onHeaders(status, rawHeaders, resumeBody) {
        resume = resumeBody;
        let table: Map<string, string> | undefined;
        const pushed = new PushedBody({
          pause: () => {
            paused = true;
          },
          resume: () => {
            paused = false;
            resume?.();
          },
          abandon: () => abort?.(new Error('body left before its end')),
        });
        body = pushed;
        resolve({
          status,
          header: (name) => (table ??= headerTable(rawHeaders)).get(name.toLowerCase()),
          body: pushed,
          discard: () => {
            if (!settled) abort?.(new Error('body discarded'));
            void pushed.return();
          },
        });
        return true;
      },
      onData(chunk) {
        body?.push(chunk);
        return !paused;
      },
      onComplete() {
        done();
        body?.end();
      },
      onError(error) {
        done();
        const mapped = networkError(error, url, signal);
        if (body === undefined) reject(mapped);
        else body.fail(mapped);
      },
    };
    dispatcher.dispatch(options, handler);
  });
}
