/**
 * The refresh_token grant (RFC 6749 §6) with rotation on every use and reuse detection
 * (RFC 9700 §4.14.2, OAuth 2.1 §4.3.1, docs/OAUTH.md §The rules, T-28): only the grant's current refresh token
 * is accepted; presenting an older one revokes the grant, then answers invalid_grant.
 * The compare-and-rotate runs synchronously after the one await (unsealing), so two concurrent
 * uses of the same token cannot both rotate.
 */
import type { AuthenticatedClient } from '../client-auth.js';
import { invalidGrant } from '../oauth-error.js';
import type { OAuthParams } from '../oauth-params.js';
import { optionalString, requiredString } from '../oauth-params.js';
import type { OAuthState } from '../oauth-state.js';
import { parseScope, requireSubset } from '../scope.js';
import type { TokenResponse } from '../tokens/token-issuer.js';
import { issueTokens } from '../tokens/token-issuer.js';

/** Exchanges a refresh token for new tokens. */
export async function refreshTokens(
  state: OAuthState,
  auth: AuthenticatedClient,
  params: OAuthParams,
): Promise<TokenResponse> {
  const { client } = auth;
  const token = requiredString(params, 'refresh_token');
  const scopeParam = optionalString(params, 'scope');
  const requested = scopeParam === undefined ? undefined : parseScope(scopeParam);
  const opened = await state.sealer.unseal(token, state.clock.now());
  if (!opened.ok) {
    throw opened.reason === 'expired'
      ? invalidGrant('REFRESH_TOKEN_EXPIRED', 'refresh token has expired')
      : invalidGrant('REFRESH_TOKEN_INVALID', 'refresh token is invalid');
  }
  const claims = opened.claims;
  if (claims.kind !== 'refresh') {
    throw invalidGrant('REFRESH_TOKEN_INVALID', 'refresh token is invalid');
  }
  if (claims.cid !== client.id) {
    throw invalidGrant('REFRESH_TOKEN_OTHER_CLIENT', 'refresh token was issued to another client');
  }
  const nowMs = state.clock.now();
  const grant = state.grants.get(claims.gid, nowMs);
  if (grant === undefined) throw invalidGrant('REFRESH_TOKEN_REVOKED', 'refresh token is revoked');
  if (claims.jti !== grant.refreshJti) {
    state.grants.revoke(grant.id); // RFC 9700 §4.14.2: reuse of a rotated token kills the family
    throw invalidGrant('REFRESH_TOKEN_REUSED', 'refresh token was already used; grant revoked');
  }
  let accessScope = grant.scope;
  if (requested !== undefined) {
    requireSubset(requested, grant.scope.split(' ')); // RFC 6749 §6: never widen
    accessScope = requested.join(' ');
  }
  const refreshJti = state.grants.newJti();
  grant.refreshJti = refreshJti; // rotate before any await
  grant.expiresAtMs = (Math.floor(nowMs / 1000) + state.limits.refreshTokenTtlSec) * 1000;
  return issueTokens(state, client, grant, {
    refreshJti,
    grantType: 'refresh_token',
    accessScope,
  });
}
