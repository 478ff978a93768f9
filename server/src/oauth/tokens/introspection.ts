/**
 * Token introspection (RFC 7662). The caller must authenticate as a client like at the token
 * endpoint (§2.1 requires authorization); a token of another client is reported inactive (§4).
 * Revocation is seen at once: a revoked, rotated-out or expired token is `{"active": false}`.
 */
import { authenticateClient } from '../client-auth.js';
import type { OAuthParams } from '../oauth-params.js';
import { requiredString } from '../oauth-params.js';
import type { OAuthState } from '../oauth-state.js';

/** RFC 7662 §2.2 response. */
export type IntrospectionResponse =
  | { readonly active: false }
  | {
      readonly active: true;
      readonly scope: string;
      readonly client_id: string;
      readonly sub: string;
      readonly exp: number;
      readonly iat: number;
      readonly iss: string;
      /** `Bearer` for access tokens, `refresh_token` for refresh tokens. */
      readonly token_type: string;
    };

/** Introspects a token for the authenticated caller; throws OAuthError on auth failures. */
export async function introspectToken(
  state: OAuthState,
  authorization: string | undefined,
  params: OAuthParams,
): Promise<IntrospectionResponse> {
  const { client } = authenticateClient(state.clients, authorization, params);
  const token = requiredString(params, 'token');
  const inactive = { active: false } as const;
  const opened = await state.sealer.unseal(token, state.clock.now());
  if (!opened.ok) return inactive;
  const { claims } = opened;
  if (claims.cid !== client.id) return inactive;
  const grant = state.grants.get(claims.gid, state.clock.now());
  if (grant === undefined) return inactive;
  if (claims.kind === 'refresh' && claims.jti !== grant.refreshJti) return inactive;
  if (claims.kind === 'access' && grant.revokedAccess.has(claims.jti)) return inactive;
  return {
    active: true,
    scope: claims.scope,
    client_id: claims.cid,
    sub: claims.sub,
    exp: claims.exp,
    iat: claims.iat,
    iss: state.issuer(),
    token_type: claims.kind === 'access' ? 'Bearer' : 'refresh_token',
  };
}
