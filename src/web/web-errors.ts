/**
 * Refusals of the web window's HTTP server, with stable codes (docs/SECURITY.md §Web window).
 * The body is the service's one error body (src/protocol/error-body.ts).
 */
import { errorBody, type ErrorBody } from '#protocol/error-body.js';

export type WebRefusalCode =
  | 'HOST_REFUSED'
  | 'ORIGIN_REFUSED'
  | 'UNAUTHORIZED'
  | 'BAD_ARGUMENTS'
  | 'BAD_REQUEST'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'BODY_TOO_LARGE'
  | 'TOO_MANY_STREAMS'
  | 'INTERNAL';

/** HTTP status of each refusal. */
export const REFUSAL_STATUS: { readonly [K in WebRefusalCode]: number } = {
  HOST_REFUSED: 421,
  ORIGIN_REFUSED: 403,
  UNAUTHORIZED: 401,
  BAD_ARGUMENTS: 400,
  BAD_REQUEST: 400,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  UNSUPPORTED_MEDIA_TYPE: 415,
  BODY_TOO_LARGE: 413,
  TOO_MANY_STREAMS: 503,
  INTERNAL: 500,
};

/** A refused request: thrown inside the server, answered with its status and code. */
export class WebRefusal extends Error {
  override readonly name = 'WebRefusal';
  constructor(
    readonly code: WebRefusalCode,
    message: string,
  ) {
    super(message);
  }

  get status(): number {
    return REFUSAL_STATUS[this.code];
  }

  toJSON(): ErrorBody {
    return errorBody(this.code, this.message);
  }
}
