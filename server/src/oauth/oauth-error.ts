/**
 * Typed OAuth errors. `error` is the RFC 6749 §5.2 / §4.1.2.1 / RFC 7009 error code, `code` our
 * stable application code, `status` the HTTP status (RFC 6749 §5.2: 401 only for invalid_client).
 */
import type { ErrorBody } from '../../../src/protocol/index.js';
import { errorBody } from '../../../src/protocol/index.js';

/** RFC 6749 §4.1.2.1 and §5.2 error codes, plus RFC 7662/7009 usage. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'unsupported_response_type'
  | 'access_denied'
  | 'server_error';

/** Stable application codes (the `code` field). Tests assert these. */
export type OAuthStableCode =
  | 'BODY_TOO_LARGE'
  | 'BODY_MALFORMED'
  | 'UNSUPPORTED_CONTENT_TYPE'
  | 'DUPLICATE_PARAMETER'
  | 'PARAMETER_NOT_STRING'
  | 'PARAMETER_MISSING'
  | 'PARAMETER_MALFORMED'
  | 'GRANT_TYPE_MISSING'
  | 'GRANT_TYPE_UNSUPPORTED'
  | 'CLIENT_AUTH_MISSING'
  | 'CLIENT_AUTH_MULTIPLE'
  | 'CLIENT_AUTH_MALFORMED'
  | 'CLIENT_UNKNOWN'
  | 'CLIENT_SECRET_INVALID'
  | 'CLIENT_MISMATCH'
  | 'CODE_UNKNOWN'
  | 'CODE_EXPIRED'
  | 'CODE_REUSED'
  | 'CODE_OTHER_CLIENT'
  | 'REDIRECT_URI_MISMATCH'
  | 'REDIRECT_URI_MISSING'
  | 'REDIRECT_URI_UNREGISTERED'
  | 'PKCE_VERIFIER_MALFORMED'
  | 'PKCE_VERIFIER_MISSING'
  | 'PKCE_VERIFIER_MISMATCH'
  | 'PKCE_NOT_BOUND'
  | 'PKCE_REQUIRED'
  | 'PKCE_METHOD_UNSUPPORTED'
  | 'PKCE_CHALLENGE_MALFORMED'
  | 'REFRESH_TOKEN_INVALID'
  | 'REFRESH_TOKEN_EXPIRED'
  | 'REFRESH_TOKEN_REVOKED'
  | 'REFRESH_TOKEN_REUSED'
  | 'REFRESH_TOKEN_OTHER_CLIENT'
  | 'SCOPE_INVALID'
  | 'SCOPE_WIDENED'
  | 'RESPONSE_TYPE_UNSUPPORTED'
  | 'SUBJECT_INVALID'
  | 'CLIENT_SECRET_TOO_SHORT'
  | 'INTERNAL';

/** An OAuth refusal; routes turn it into the error body with `Cache-Control: no-store`. */
export class OAuthError extends Error {
  override readonly name = 'OAuthError';
  constructor(
    readonly error: OAuthErrorCode,
    readonly code: OAuthStableCode,
    message: string,
    readonly status: 400 | 401 = error === 'invalid_client' ? 401 : 400,
    /** RFC 6749 §5.2: set when the client used HTTP Basic, so the 401 carries the challenge. */
    readonly basicChallenge = false,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** The same error, marked for a `WWW-Authenticate: Basic` challenge. */
  withBasicChallenge(): OAuthError {
    return new OAuthError(this.error, this.code, this.message, this.status, true, {
      cause: this,
    });
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
