/**
 * The token endpoint's order of checks (RFC 6749 §5.2, docs/OAUTH.md §The rules, T-03/T-08): grant_type first,
 * then client authentication, then the grant's own parameters.
 */
import { authenticateClient } from '../client-auth.js';
import { grantHandlerOf } from './grant-types.js';
import { invalidRequest, OAuthError } from '../oauth-error.js';
import type { OAuthParams } from '../oauth-params.js';
import { optionalString } from '../oauth-params.js';
import type { OAuthState } from '../oauth-state.js';
import type { TokenResponse } from '../tokens/token-issuer.js';

/** Answers a token request, or throws an OAuthError. */
export async function handleTokenRequest(
  state: OAuthState,
  authorization: string | undefined,
  params: OAuthParams,
): Promise<TokenResponse> {
  const grantType = optionalString(params, 'grant_type');
  if (grantType === undefined) throw invalidRequest('GRANT_TYPE_MISSING', 'grant_type is required');
  const handler = grantHandlerOf(grantType);
  if (handler === undefined) {
    throw new OAuthError(
      'unsupported_grant_type',
      'GRANT_TYPE_UNSUPPORTED',
      'grant_type is not supported',
    );
  }
  const auth = authenticateClient(state.clients, authorization, params);
  return handler(state, auth, params);
}
