/**
 * The UserInfo endpoint (OIDC Core §5.3), GET and POST /api/oauth/userinfo: the access token as
 * `Authorization: Bearer` (RFC 6750 §2.1; the header only). Answers `sub` and the grant's extra
 * claims (claims.ts), the same ones its latest ID token carries. Refusals follow RFC 6750 §3:
 * no token is 401 with a bare `Bearer realm="oauth"` challenge; a malformed header is 400
 * `invalid_request`; an unknown, tampered, expired or revoked token, or a refresh token, is 401
 * `invalid_token`; a token without the `openid` scope is 403 `insufficient_scope`.
 */
import type { OAuthStableCode } from '../oauth-error.js';
import { OAuthError } from '../oauth-error.js';
import type { OAuthState } from '../oauth-state.js';

const REALM = 'Bearer realm="oauth"';
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** An RFC 6750 refusal: the error body plus a `WWW-Authenticate: Bearer` challenge (§3). */
function refusal(
  error: 'invalid_request' | 'invalid_token' | 'insufficient_scope' | undefined,
  code: OAuthStableCode,
  message: string,
): OAuthError {
  const status = error === 'invalid_request' ? 400 : error === 'insufficient_scope' ? 403 : 401;
  // §3: no error attribute when the request carried no authentication at all.
  const challenge =
    error === undefined
      ? REALM
      : `${REALM}, error="${error}", error_description="${message}"${
          error === 'insufficient_scope' ? ', scope="openid"' : ''
        }`;
  return new OAuthError(error ?? 'invalid_token', code, message, status, false, { challenge });
}

/** The UserInfo response for the request's Authorization header (throws OAuthError). */
export function userinfo(
  state: OAuthState,
  authorization: string | undefined,
): Record<string, unknown> {
  if (authorization === undefined || authorization === '' || !/^bearer( |$)/i.test(authorization)) {
    throw refusal(undefined, 'ACCESS_TOKEN_MISSING', 'send Authorization: Bearer <access token>');
  }
  const token = BEARER.exec(authorization)?.[1];
  if (token === undefined) {
    throw refusal(
      'invalid_request',
      'ACCESS_TOKEN_MALFORMED',
      'the Bearer credentials are malformed',
    );
  }
  const nowMs = state.clock.now();
  const opened = state.sealer.open(token, nowMs);
  if (!opened.ok) {
    throw opened.reason === 'expired'
      ? refusal('invalid_token', 'ACCESS_TOKEN_EXPIRED', 'the access token has expired')
      : refusal('invalid_token', 'ACCESS_TOKEN_INVALID', 'the access token is invalid');
  }
  const { claims } = opened;
  if (claims.kind !== 'access') {
    throw refusal('invalid_token', 'ACCESS_TOKEN_INVALID', 'the access token is invalid');
  }
  const grant = state.grants.get(claims.gid, nowMs);
  if (grant === undefined || grant.revokedAccess.has(claims.jti)) {
    throw refusal('invalid_token', 'ACCESS_TOKEN_REVOKED', 'the access token is revoked');
  }
  if (!claims.scope.split(' ').includes('openid')) {
    throw refusal('insufficient_scope', 'SCOPE_INSUFFICIENT', 'userinfo needs the openid scope');
  }
  return { sub: claims.sub, ...grant.issuedClaims };
}
