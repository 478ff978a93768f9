/**
 * Every OAuth limit and lifetime in one place, with units in the names (docs/ARCHITECTURE.md §Habits).
 */
import type { ServerConfig } from '../config/config-types.js';
export interface OAuthLimits {
  /** Authorization code lifetime (docs/PROTOCOL.md §4.6: 60 s; RFC 6749 §4.1.2: at most 10 min). */
  readonly codeTtlMs: number;
  /** Access token lifetime, also `expires_in` (RFC 6749 §5.1). */
  readonly accessTokenTtlSec: number;
  /** Refresh token lifetime; sliding, every rotation starts a new one. */
  readonly refreshTokenTtlSec: number;
  /** ID token lifetime (OIDC Core §2 `exp`). */
  readonly idTokenTtlSec: number;
  /** Bound on stored codes (issued and redeemed); the oldest are evicted first. */
  readonly maxCodes: number;
  /** Bound on live grants; the oldest are evicted first (their tokens stop working). */
  readonly maxGrants: number;
  /** Body size cap of every OAuth route (docs/OAUTH.md §The rules, T-02). */
  readonly bodyLimitBytes: number;
  /** Bound on nonce, state and login_hint lengths. */
  readonly maxParamChars: number;
}

export const DEFAULT_OAUTH_LIMITS: OAuthLimits = {
  codeTtlMs: 60_000,
  accessTokenTtlSec: 3600,
  refreshTokenTtlSec: 86_400,
  idTokenTtlSec: 3600,
  maxCodes: 100_000,
  maxGrants: 100_000,
  bodyLimitBytes: 16 * 1024,
  maxParamChars: 512,
};

/** The OAuth lifetimes the config sets, as OAuthLimits. */
export function oauthLimitsOf(config: ServerConfig): Partial<OAuthLimits> {
  const l = config.lifetimes ?? {};
  const out: { -readonly [K in keyof OAuthLimits]?: OAuthLimits[K] } = {};
  if (l.authorization_code_s !== undefined) out.codeTtlMs = l.authorization_code_s * 1000;
  if (l.access_token_s !== undefined) out.accessTokenTtlSec = l.access_token_s;
  if (l.refresh_token_s !== undefined) out.refreshTokenTtlSec = l.refresh_token_s;
  if (l.id_token_s !== undefined) out.idTokenTtlSec = l.id_token_s;
  return out;
}
