/**
 * The OpenID Provider metadata (OIDC Discovery §3, RFC 8414 §2), consistent with the issuer so
 * RP libraries accept it (RFC 8414 §3.3: `issuer` must equal the URL it was fetched under).
 * Deviation (docs/OAUTH.md §The rules, I-09): only HS256 is listed and there is no `jwks_uri`, because every ID
 * token is signed with the client's secret; see docs/PROTOCOL.md §4.
 */
import type { OAuthState } from './oauth-state.js';
import { GRANT_TYPES_SUPPORTED } from './grants/grant-types.js';
import { DEFAULT_SCOPES } from './clients.js';

/** Paths of the OAuth endpoints, relative to the issuer. */
export const OAUTH_PATHS = {
  discovery: '/.well-known/openid-configuration',
  authorize: '/api/oauth/authorize',
  token: '/api/oauth/token',
  revoke: '/api/oauth/revoke',
  introspect: '/api/oauth/introspect',
  userinfo: '/api/oauth/userinfo',
  endSession: '/api/oauth/end-session',
  /** The login page's form posts here (not advertised: it is part of the page). */
  login: '/api/oauth/login',
} as const;

/** Builds the discovery document for the current issuer. */
export function discoveryDocument(state: OAuthState): Record<string, unknown> {
  const issuer = state.issuer();
  const at = (path: string): string => `${issuer.replace(/\/+$/, '')}${path}`;
  return {
    issuer,
    authorization_endpoint: at(OAUTH_PATHS.authorize),
    token_endpoint: at(OAUTH_PATHS.token),
    revocation_endpoint: at(OAUTH_PATHS.revoke),
    introspection_endpoint: at(OAUTH_PATHS.introspect),
    userinfo_endpoint: at(OAUTH_PATHS.userinfo),
    end_session_endpoint: at(OAUTH_PATHS.endSession),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: GRANT_TYPES_SUPPORTED,
    code_challenge_methods_supported: ['S256'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['HS256'],
    scopes_supported: DEFAULT_SCOPES,
    claims_supported: ['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'at_hash'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    introspection_endpoint_auth_methods_supported: [
      'client_secret_basic',
      'client_secret_post',
      'none',
    ],
    revocation_endpoint_auth_methods_supported: ['none'],
    authorization_response_iss_parameter_supported: true,
  };
}
