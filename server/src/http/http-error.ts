/**
 * The server's typed error: an HTTP status plus a stable code (docs/PROTOCOL.md §1). Route and
 * module code throws it; the global error handler turns it into the error body. Messages never
 * carry secrets, so they are safe to send to the client.
 */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Narrows an unknown thrown value to an HttpError. */
export function isHttpError(value: unknown): value is HttpError {
  return value instanceof HttpError;
}
