/**
 * The supported grant types (discovery `grant_types_supported`), each with its handler.
 */
import { redeemAuthorizationCode } from './authorization-code-grant.js';
import type { AuthenticatedClient } from '../client-auth.js';
import type { OAuthParams } from '../oauth-params.js';
import type { OAuthState } from '../oauth-state.js';
import { refreshTokens } from './refresh-token-grant.js';
import type { TokenResponse } from '../tokens/token-issuer.js';

export type GrantHandler = (
  state: OAuthState,
  auth: AuthenticatedClient,
  params: OAuthParams,
) => Promise<TokenResponse>;

const HANDLERS: ReadonlyMap<string, GrantHandler> = new Map([
  ['authorization_code', redeemAuthorizationCode],
  ['refresh_token', refreshTokens],
]);

export const GRANT_TYPES_SUPPORTED: readonly string[] = [...HANDLERS.keys()];

/** The handler of a grant type, or undefined when unsupported. */
export function grantHandlerOf(grantType: string): GrantHandler | undefined {
  return HANDLERS.get(grantType);
}
