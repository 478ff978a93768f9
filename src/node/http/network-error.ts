/**
 * A failed request of the node fetcher as the port's error: NETWORK (transient, naming the URL
 * without its query and the errno) or ABORTED once the request's signal aborted.
 */
import { UpdateError } from '#core/errors.js';
import { safeUrl } from '#core/transfer/index.js';

export function networkError(error: unknown, url: string, signal: AbortSignal): UpdateError {
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

/** An error with node's errno-style `code`, for networkError to name. */
export function errnoError(code: string, message: string): NodeJS.ErrnoException {
  const error = new Error(message) as NodeJS.ErrnoException;
  error.code = code;
  return error;
}
