/**
 * Validation of what a code will be bound to, shared by GET /api/oauth/authorize, the dev API
 * and the in-process `mintCode`: redirect URI registered exactly (RFC 9700 §4.1.3), scope within
 * the client's (RFC 6749 §3.3), PKCE S256 only and required for public clients (RFC 7636 §4.2,
 * RFC 9700 §2.1.1, docs/OAUTH.md §The rules, T-18), bounded nonce and subject (OIDC Core §2: sub ≤ 255 ASCII).
 */
import type { Claims } from '../tokens/claims.js';
import type { OAuthClient } from '../clients.js';
import { canonicalRedirect, isRegisteredRedirect } from '../clients.js';
import type { CodeBinding } from '../grants/code-store.js';
import { invalidRequest, OAuthError } from '../oauth-error.js';
import type { OAuthState } from '../oauth-state.js';
import { isValidChallenge } from '../grants/pkce.js';
import { parseScope, requireSubset } from '../scope.js';

/** The subject used when no login_hint is given. */
export const DEFAULT_SUBJECT = 'demo-user';
/** OIDC Core §2: `sub` is at most 255 ASCII characters; visible ones only here. */
export const SUBJECT = /^[\x21-\x7e]{1,255}$/;

/** A code request before validation; every field as received (strings or undefined). */
export interface CodeRequest {
  readonly scope: string | undefined;
  readonly nonce: string | undefined;
  readonly subject: string | undefined;
  readonly codeChallenge: string | undefined;
  readonly codeChallengeMethod: string | undefined;
  /** Extra ID-token claims, already checked (claims.ts). */
  readonly claims?: Claims | undefined;
}

/** Looks up the client; an unknown one is never redirected to (RFC 6749 §4.1.2.1). */
export function requireClient(state: OAuthState, clientId: string | undefined): OAuthClient {
  if (clientId === undefined) throw invalidRequest('PARAMETER_MISSING', 'client_id is required');
  const client = state.clients.get(clientId);
  if (client === undefined) {
    throw new OAuthError('invalid_request', 'CLIENT_UNKNOWN', 'client_id is not registered', 400);
  }
  return client;
}

/** Checks the redirect URI is registered for the client and returns its canonical spelling. */
export function requireRedirect(client: OAuthClient, uri: string | undefined): string {
  if (uri === undefined) throw invalidRequest('REDIRECT_URI_MISSING', 'redirect_uri is required');
  if (!isRegisteredRedirect(client, uri)) {
    throw invalidRequest('REDIRECT_URI_UNREGISTERED', 'redirect_uri is not registered');
  }
  return canonicalRedirect(uri);
}

/** Validates the rest of a code request into a binding (throws OAuthError). */
export function toCodeBinding(
  state: OAuthState,
  client: OAuthClient,
  redirectUri: string,
  req: CodeRequest,
): CodeBinding {
  const max = state.limits.maxParamChars;
  const scopes = parseScope(req.scope ?? 'openid');
  requireSubset(scopes, client.scopes);
  if (req.codeChallengeMethod !== undefined && req.codeChallengeMethod !== 'S256') {
    throw invalidRequest('PKCE_METHOD_UNSUPPORTED', 'code_challenge_method must be S256');
  }
  if (req.codeChallenge === undefined) {
    if (client.secret === undefined) {
      throw invalidRequest('PKCE_REQUIRED', 'public clients must send a S256 code_challenge');
    }
  } else {
    // RFC 7636 §4.3: an absent method means plain, which we refuse (T-18).
    if (req.codeChallengeMethod === undefined) {
      throw invalidRequest('PKCE_METHOD_UNSUPPORTED', 'code_challenge_method S256 is required');
    }
    if (!isValidChallenge(req.codeChallenge)) {
      throw invalidRequest('PKCE_CHALLENGE_MALFORMED', 'code_challenge is not a S256 challenge');
    }
  }
  if (req.nonce !== undefined && req.nonce.length > max) {
    throw invalidRequest('PARAMETER_MALFORMED', `nonce is longer than ${max} characters`);
  }
  const subject = req.subject ?? DEFAULT_SUBJECT;
  if (!SUBJECT.test(subject)) {
    throw invalidRequest('SUBJECT_INVALID', 'subject must be 1-255 visible ASCII characters');
  }
  return {
    clientId: client.id,
    redirectUri,
    codeChallenge: req.codeChallenge,
    nonce: req.nonce,
    scope: scopes.join(' '),
    subject,
    authTimeSec: Math.floor(state.clock.now() / 1000),
    claims: req.claims,
  };
}
