/**
 * A failed request of the node fetcher as the port's error: NETWORK (transient, naming the URL
 * without its query and the reason's code) or ABORTED once the request's signal aborted.
 * undici nests the reason one to three causes deep and names some of its own
 * (UND_ERR_…): an errno along the chain (ECONNREFUSED) says more, and undici's connect
 * timeout is said as the errno it stands for (ETIMEDOUT).
 */
import { UpdateError } from '#core/errors.js';
import { safeUrl } from '#core/transfer/index.js';

/** undici's own codes that stand for an errno. */
const ERRNO_OF: Readonly<Record<string, string>> = {
  UND_ERR_CONNECT_TIMEOUT: 'ETIMEDOUT',
  UND_ERR_SOCKET: 'ECONNRESET',
};

/** The messages and codes along an error's cause chain, outermost first. */
export function causes(error: unknown): { messages: string[]; codes: string[] } {
  const messages: string[] = [];
  const codes: string[] = [];
  let at: unknown = error;
  for (let depth = 0; depth < 6 && typeof at === 'object' && at !== null; depth++) {
    const { message, code, cause } = at as { message?: unknown; code?: unknown; cause?: unknown };
    if (typeof message === 'string' && message !== '') messages.push(message);
    if (typeof code === 'string') codes.push(code);
    at = cause;
  }
  return { messages, codes };
}

/** The code a failure is named by: an errno along the chain, else undici's, mapped. */
export function reasonCode(codes: readonly string[]): string {
  const code = codes.find((c) => !c.startsWith('UND_ERR')) ?? codes[0] ?? 'ERR';
  return ERRNO_OF[code] ?? code;
}

export function networkError(error: unknown, url: string, signal: AbortSignal): UpdateError {
  if (signal.aborted) {
    if (error instanceof UpdateError && error.code === 'ABORTED') return error;
    return new UpdateError('ABORTED', 'request aborted', { cause: error });
  }
  if (error instanceof UpdateError) return error;
  const { messages, codes } = causes(error);
  const code = reasonCode(codes);
  const message = messages.at(-1) ?? 'request failed';
  return new UpdateError('NETWORK', `${code}: ${message}`, {
    cause: error,
    transient: true,
    details: { url: safeUrl(url), errno: code },
  });
}
