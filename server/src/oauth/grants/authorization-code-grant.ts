/**
 * The authorization_code grant (RFC 6749 §4.1.3, RFC 7636 §4.6). Every check runs before the
 * code is claimed (consume on success, docs/OAUTH.md §The rules, T-22), and check + claim are synchronous, so
 * concurrent redemptions cannot both pass (T-19). A valid replay revokes the tokens issued from
 * the code (T-20); a replay that fails any other check revokes nothing (T-21, OAuth 2.1 §7.5.2).
 */
import type { AuthenticatedClient } from '../client-auth.js';
import { canonicalRedirect } from '../clients.js';
import { invalidGrant, invalidRequest } from '../oauth-error.js';
import type { OAuthParams } from '../oauth-params.js';
import { optionalString, requiredString } from '../oauth-params.js';
import type { OAuthState } from '../oauth-state.js';
import { isValidVerifier, verifierMatches } from './pkce.js';
import type { TokenResponse } from '../tokens/token-issuer.js';
import { issueTokens } from '../tokens/token-issuer.js';

/** Redeems a code for the authenticated client and mints the token response. */
export async function redeemAuthorizationCode(
  state: OAuthState,
  auth: AuthenticatedClient,
  params: OAuthParams,
): Promise<TokenResponse> {
  const { client } = auth;
  const code = requiredString(params, 'code'); // T-04
  const redirectUri = optionalString(params, 'redirect_uri');
  const verifier = optionalString(params, 'code_verifier');
  if (verifier !== undefined && !isValidVerifier(verifier)) {
    throw invalidRequest('PKCE_VERIFIER_MALFORMED', 'code_verifier is malformed (RFC 7636 §4.1)');
  }
  const record = state.codes.get(code);
  if (record === undefined) throw invalidGrant('CODE_UNKNOWN', 'code is unknown'); // T-10
  if (record.clientId !== client.id) {
    throw invalidGrant('CODE_OTHER_CLIENT', 'code was issued to another client'); // T-11
  }
  if (redirectUri === undefined) {
    if (client.requireRedirectUriAtToken) {
      throw invalidRequest('REDIRECT_URI_MISSING', 'redirect_uri is required (RFC 6749 §4.1.3)');
    }
  } else if (canonicalRedirect(redirectUri) !== record.redirectUri) {
    throw invalidGrant('REDIRECT_URI_MISMATCH', 'redirect_uri does not match the code'); // T-13
  }
  if (record.codeChallenge === undefined) {
    if (verifier !== undefined) {
      // T-17, RFC 9700 §4.8.2: a verifier without a bound challenge is a downgrade attempt.
      throw invalidGrant('PKCE_NOT_BOUND', 'code_verifier sent but the code has no challenge');
    }
  } else if (verifier === undefined) {
    throw invalidGrant('PKCE_VERIFIER_MISSING', 'code_verifier is required'); // T-15
  } else if (!verifierMatches(verifier, record.codeChallenge)) {
    throw invalidGrant('PKCE_VERIFIER_MISMATCH', 'code_verifier does not match'); // T-16
  }
  const nowMs = state.clock.now();
  if (record.grantId !== undefined) {
    state.grants.revoke(record.grantId); // T-20: revoke the whole family issued from the code
    throw invalidGrant('CODE_REUSED', 'code was already used; its tokens are revoked');
  }
  if (record.expiresAtMs <= nowMs) throw invalidGrant('CODE_EXPIRED', 'code has expired'); // T-12
  const grantId = state.grants.newId();
  const refreshJti = state.grants.newJti();
  const nowSec = Math.floor(nowMs / 1000);
  const expiresAtMs = (nowSec + state.limits.refreshTokenTtlSec) * 1000;
  // Keep the redeemed record as long as its tokens may live, so a replay is always caught.
  state.codes.claim(record, grantId, expiresAtMs);
  const grant = state.grants.add(
    grantId,
    {
      clientId: client.id,
      subject: record.subject,
      scope: record.scope,
      authTimeSec: record.authTimeSec,
      nonce: record.nonce,
      claims: record.claims,
      refreshJti,
      expiresAtMs,
    },
    nowMs,
  );
  return issueTokens(state, client, grant, { refreshJti, grantType: 'authorization_code' });
}
