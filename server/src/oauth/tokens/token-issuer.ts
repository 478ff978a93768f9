/**
 * Mints the token response of RFC 6749 §5.1 / OIDC Core §3.1.3.3 for a grant: a sealed access
 * token, a sealed refresh token (whose jti the grant now expects next) and an HS256 ID token
 * carrying the grant's extra claims (claims.ts).
 */
import type { KeyObject } from 'node:crypto';
import { claimsFor, type Claims } from './claims.js';
import type { OAuthClient } from '../clients.js';
import type { Grant } from '../grants/grant-store.js';
import { hs256Key, signIdToken } from './id-token.js';
import type { OAuthState } from '../oauth-state.js';

/** The 200 body of the token endpoint (docs/OAUTH.md §The rules, T-23). */
export interface TokenResponse {
  readonly access_token: string;
  readonly refresh_token: string;
  readonly id_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly scope: string;
}

// HS256 keys made once per client object (clients are immutable; re-registration replaces the
// object, so a changed secret gets a new key) and per server key for public clients.
const clientKeys = new WeakMap<object, KeyObject>();

/** The key a client's ID tokens are signed with (also checks an id_token_hint, end-session.ts). */
export function idTokenKey(state: OAuthState, client: OAuthClient): KeyObject {
  const owner: object = client.secret === undefined ? state.publicIdTokenKey : client;
  let key = clientKeys.get(owner);
  if (key === undefined) {
    const raw =
      client.secret === undefined ? state.publicIdTokenKey : Buffer.from(client.secret, 'utf8');
    key = hs256Key(raw);
    clientKeys.set(owner, key);
  }
  return key;
}

export interface IssueOptions {
  /** Must already be the grant's `refreshJti` (set synchronously by the caller). */
  readonly refreshJti: string;
  /** authorization_code echoes the nonce; refresh does not (OIDC Core §12.2). */
  readonly grantType: 'authorization_code' | 'refresh_token';
  /** Narrows the access token only (RFC 6749 §6); default the grant's scope. */
  readonly accessScope?: string;
}

/**
 * Seals both tokens and signs the ID token (node:crypto; docs/OAUTH.md, "Token crypto"). The
 * caller has already claimed the code or rotated the refresh token, so concurrent requests
 * cannot both win; an `onIssueTokens` hook may await after that point.
 */
export function issueTokens(
  state: OAuthState,
  client: OAuthClient,
  grant: Grant,
  options: IssueOptions,
): Promise<TokenResponse> {
  const claims = claimsFor(state.claims, {
    client_id: client.id,
    subject: grant.subject,
    scope: grant.scope,
    grant_type: options.grantType,
    own: grant.claims,
  });
  if (claims instanceof Promise) {
    return claims.then((extra) => mintTokens(state, client, grant, options, extra));
  }
  return Promise.resolve(mintTokens(state, client, grant, options, claims));
}

function mintTokens(
  state: OAuthState,
  client: OAuthClient,
  grant: Grant,
  options: IssueOptions,
  extra: Claims,
): TokenResponse {
  const accessScope = options.accessScope ?? grant.scope;
  const nowSec = Math.floor(state.clock.now() / 1000);
  const base = {
    cid: client.id,
    sub: grant.subject,
    scope: grant.scope,
    gid: grant.id,
    iat: nowSec,
  };
  const accessToken = state.sealer.seal({
    ...base,
    scope: accessScope,
    jti: state.grants.newJti(),
    kind: 'access',
    exp: nowSec + state.limits.accessTokenTtlSec,
  });
  const refreshToken = state.sealer.seal({
    ...base,
    jti: options.refreshJti,
    kind: 'refresh',
    exp: Math.floor(grant.expiresAtMs / 1000),
  });
  grant.issuedClaims = extra;
  const idToken = signIdToken({
    issuer: state.issuer(),
    subject: grant.subject,
    clientId: client.id,
    nonce: options.grantType === 'authorization_code' ? grant.nonce : undefined,
    authTimeSec: grant.authTimeSec,
    nowSec,
    ttlSec: state.limits.idTokenTtlSec,
    accessToken,
    key: idTokenKey(state, client),
    extraClaims: extra,
  });
  return {
    access_token: accessToken,
    refresh_token: refreshToken,
    id_token: idToken,
    token_type: 'Bearer',
    expires_in: state.limits.accessTokenTtlSec,
    scope: accessScope,
  };
}
