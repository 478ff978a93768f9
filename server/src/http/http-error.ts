/**
 * A refusal raised by route and area code with its HTTP status spelled out at the throw site
 * (docs/PROTOCOL.md §1). A ServerError like every other server error: the global error handler
 * turns it into the error body.
 * @example throw new HttpError(404, 'NO_RELEASE', 'nothing is published');
 */
import type { ServerErrorCode } from '#protocol';
import { ServerError, type ServerErrorOptions } from '../server-error.js';

export class HttpError extends ServerError {
  override readonly name = 'HttpError';
  constructor(
    statusCode: number,
    code: ServerErrorCode,
    message: string,
    options: Omit<ServerErrorOptions, 'status'> = {},
  ) {
    super(code, message, { ...options, status: statusCode });
  }
}
