/**
 * Token revocation (RFC 7009). Always succeeds from the caller's view (§2.2, docs/OAUTH.md §The rules, R-01):
 * unknown, garbage, expired, already revoked and foreign tokens are all a silent no-op.
 * One decryption reveals the token's kind, so the hint only orders the lookup and a wrong or
 * unknown hint still finds the token (§2.1, R-02/R-03/R-04).
 * Revoking a refresh token revokes its grant, hence every access token of it; revoking an
 * access token revokes that token only (R-05, the node-oidc-provider choice).
 * A caller that presents client credentials (HTTP Basic, client_secret, or a public client's
 * client_id) is authenticated exactly as at the token endpoint; it then may revoke only its own
 * client's tokens, and a failed authentication revokes nothing (R-10, docs/PROTOCOL.md §4.9).
 */
import { authenticateClient } from '../client-auth.js';
import type { OAuthParams } from '../oauth-params.js';
import type { OAuthState } from '../oauth-state.js';

/** Bound on revoked access tokens remembered per grant; past it the whole grant is revoked. */
const MAX_REVOKED_ACCESS_PER_GRANT = 1000;

/**
 * The client the caller authenticated as; null when it presented no credentials at all (the
 * endpoint is public), undefined when the ones it presented fail.
 */
function caller(
  state: OAuthState,
  authorization: string | undefined,
  params: OAuthParams,
): string | null | undefined {
  const presented =
    (authorization !== undefined && authorization !== '') ||
    params['client_id'] !== undefined ||
    params['client_secret'] !== undefined;
  if (!presented) return null;
  try {
    return authenticateClient(state.clients, authorization, params).client.id;
  } catch {
    return undefined; // answered 200 all the same (docs/INTERFACE.md defines only 200)
  }
}

/** Revokes the token named by the parameters, if any. Never throws on bad input. */
export async function revokeToken(
  state: OAuthState,
  authorization: string | undefined,
  params: OAuthParams,
): Promise<void> {
  const token = params['token'];
  if (typeof token !== 'string' || token === '') return; // no token, nothing to do
  const clientId = caller(state, authorization, params);
  if (clientId === undefined) return;
  const opened = await state.sealer.unseal(token, state.clock.now());
  if (!opened.ok) return; // garbage, foreign or expired: already unusable
  const { claims } = opened;
  // an authenticated caller's revocation of another client's token is a silent no-op.
  if (clientId !== null && clientId !== claims.cid) return;
  const grant = state.grants.get(claims.gid, state.clock.now());
  if (grant === undefined) return; // already revoked
  if (claims.kind === 'refresh') {
    state.grants.revoke(grant.id);
    return;
  }
  grant.revokedAccess.add(claims.jti);
  if (grant.revokedAccess.size > MAX_REVOKED_ACCESS_PER_GRANT) state.grants.revoke(grant.id);
}
