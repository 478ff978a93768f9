/**
 * Everything the OAuth logic shares: clients, codes, grants, logins waiting on the login page,
 * the token sealer, limits, the claims policy, the injected clock and the issuer. Built once per
 * server by the module; tests build their own.
 */
import type { ServerClock } from '../platform/clock.js';
import type { RandomSource } from '../platform/random.js';
import { EMPTY_POLICY, type ClaimsPolicy } from './tokens/claims.js';
import { ClientRegistry } from './clients.js';
import { CodeStore } from './grants/code-store.js';
import { GrantStore } from './grants/grant-store.js';
import type { OAuthLimits } from './oauth-limits.js';
import { DEFAULT_OAUTH_LIMITS } from './oauth-limits.js';
import { PendingLogins } from './login/pending-logins.js';
import { TokenSealer } from './tokens/token-seal.js';

export interface OAuthState {
  readonly clients: ClientRegistry;
  readonly codes: CodeStore;
  readonly grants: GrantStore;
  /** Authorization requests shown on the login page, waiting for the tester's choice. */
  readonly logins: PendingLogins;
  /** Without `login_hint`: true shows the login page, false approves as `demo-user`. */
  readonly loginPage: boolean;
  /** Extra ID-token claims: config per client and subject, and the onIssueTokens hook. */
  readonly claims: ClaimsPolicy;
  readonly sealer: TokenSealer;
  readonly limits: OAuthLimits;
  readonly clock: Pick<ServerClock, 'now'>;
  readonly random: RandomSource;
  /** The issuer (OIDC Core §2 `iss`); read per request because the port is known late. */
  issuer(): string;
  /**
   * HS256 key for ID tokens of clients without a secret (public clients). Server-held: such
   * clients cannot verify the signature and rely on TLS instead (OIDC Core §3.1.3.7 item 6).
   */
  readonly publicIdTokenKey: Uint8Array;
}

/** Builds fresh OAuth state. Keys come from `random`, so --seed makes them reproducible. */
export function createOAuthState(deps: {
  clock: Pick<ServerClock, 'now'>;
  random: RandomSource;
  issuer: () => string;
  limits?: Partial<OAuthLimits>;
  claims?: ClaimsPolicy;
  loginPage?: boolean;
}): OAuthState {
  const limits = { ...DEFAULT_OAUTH_LIMITS, ...deps.limits };
  return {
    clients: new ClientRegistry(),
    codes: new CodeStore(deps.random, limits.codeTtlMs, limits.maxCodes),
    grants: new GrantStore(deps.random, limits.maxGrants),
    logins: new PendingLogins(deps.random),
    loginPage: deps.loginPage ?? true,
    claims: deps.claims ?? EMPTY_POLICY,
    sealer: new TokenSealer(deps.random.bytes(32)),
    limits,
    clock: deps.clock,
    random: deps.random,
    issuer: deps.issuer,
    publicIdTokenKey: deps.random.bytes(32),
  };
}
