/**
 * Typed OAuth errors. `error` is the RFC 6749 §5.2 / §4.1.2.1 / RFC 7009 error code, `code` our
 * stable application code (src/protocol's ServerErrorCode table), `status` the HTTP status
 * (RFC 6749 §5.2: 401 only for invalid_client).
 */
import type { ErrorBody, OAuthStableCode } from '#protocol';
import { errorBody } from '#protocol';
import { ServerError } from '../server-error.js';

export type { OAuthStableCode } from '#protocol';

/** RFC 6749 §4.1.2.1 and §5.2 error codes, plus RFC 7662/7009 usage and RFC 6750 §3.1. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'unsupported_response_type'
  | 'access_denied'
  | 'server_error';

/** RFC 6749 §5.1: OAuth answers, refusals included, must not be cached. */
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' } as const;
/** RFC 6749 §5.2: a 401 for a client that used HTTP Basic carries the challenge. */
const BASIC_CHALLENGE = { 'www-authenticate': 'Basic realm="oauth", charset="UTF-8"' } as const;

/**
 * An OAuth refusal: a ServerError whose body also carries the RFC code in `error` and
 * `error_description`, always sent with `Cache-Control: no-store`.
 */
export class OAuthError extends ServerError<OAuthStableCode> {
  override readonly name = 'OAuthError';
  constructor(
    readonly error: OAuthErrorCode,
    code: OAuthStableCode,
    message: string,
    readonly status: 400 | 401 | 403 | 500 = error === 'invalid_client' ? 401 : 400,
    /** RFC 6749 §5.2: set when the client used HTTP Basic, so the 401 carries the challenge. */
    readonly basicChallenge = false,
    options: { cause?: unknown; challenge?: string } = {},
  ) {
    const challenge =
      options.challenge !== undefined
        ? { 'www-authenticate': options.challenge }
        : status === 401 && basicChallenge
          ? BASIC_CHALLENGE
          : {};
    super(code, message, {
      cause: options.cause,
      status,
      headers: { ...NO_STORE, ...challenge },
    });
  }

  /** The same error, marked for a `WWW-Authenticate: Basic` challenge. */
  withBasicChallenge(): OAuthError {
    return new OAuthError(this.error, this.code, this.message, this.status, true, {
      cause: this,
    });
  }

  /** RFC 6749 §5.2: `error` carries the RFC code, `error_description` the message. */
  override body(): OAuthErrorBody {
    return oauthErrorBody(this);
  }
}

/** Shorthands for the common cases, so call sites read like the RFC. */
export const invalidRequest = (code: OAuthStableCode, message: string): OAuthError =>
  new OAuthError('invalid_request', code, message);
export const invalidGrant = (code: OAuthStableCode, message: string): OAuthError =>
  new OAuthError('invalid_grant', code, message);
export const invalidClient = (code: OAuthStableCode, message: string): OAuthError =>
  new OAuthError('invalid_client', code, message);

/** The OAuth error body: `error` carries the RFC code (RFC 6749 §5.2), `code` ours. */
export interface OAuthErrorBody extends ErrorBody {
  readonly error: OAuthErrorCode;
  readonly error_description: string;
}

/**
 * Builds the body of an OAuth refusal on top of the shared error body. RFC 6749 §5.2 limits
 * `error_description` to %x20-21 / %x23-5B / %x5D-7E, so other characters are replaced.
 */
export function oauthErrorBody(err: OAuthError): OAuthErrorBody {
  const base = errorBody(err.code, err.message);
  const description = base.error.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '?');
  return { ok: false, error: err.error, error_description: description, code: base.code };
}
