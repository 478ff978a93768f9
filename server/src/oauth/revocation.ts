/**
 * Token revocation (RFC 7009). Always succeeds from the caller's view (§2.2, checklist R-01):
 * unknown, garbage, expired, already revoked and foreign tokens are all a silent no-op.
 * One decryption reveals the token's kind, so the hint only orders the lookup and a wrong or
 * unknown hint still finds the token (§2.1, R-02/R-03/R-04).
 * Revoking a refresh token revokes its grant, hence every access token of it; revoking an
 * access token revokes that token only (R-05, the node-oidc-provider choice).
 */
import type { OAuthParams } from './oauth-params.js';
import type { OAuthState } from './oauth-state.js';

/** Bound on revoked access tokens remembered per grant; past it the whole grant is revoked. */
const MAX_REVOKED_ACCESS_PER_GRANT = 1000;

/** Revokes the token named by the parameters, if any. Never throws on bad input. */
export async function revokeToken(state: OAuthState, params: OAuthParams): Promise<void> {
  const token = params['token'];
  if (typeof token !== 'string' || token === '') return; // no token, nothing to do
  const opened = await state.sealer.unseal(token, state.clock.now());
  if (!opened.ok) return; // garbage, foreign or expired: already unusable
  const { claims } = opened;
  const clientId = params['client_id'];
  // when the caller names its client, a token of another client is left alone (silently).
  if (typeof clientId === 'string' && clientId !== '' && clientId !== claims.cid) return;
  const grant = state.grants.get(claims.gid, state.clock.now());
  if (grant === undefined) return; // already revoked
  if (claims.kind === 'refresh') {
    state.grants.revoke(grant.id);
    return;
  }
  grant.revokedAccess.add(claims.jti);
  if (grant.revokedAccess.size > MAX_REVOKED_ACCESS_PER_GRANT) state.grants.revoke(grant.id);
}
