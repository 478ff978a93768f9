/**
 * Minting a code directly, for QA (dev API `POST /api/dev/oauth/codes` and in-process
 * `api.mintCode`): same validation as the authorization endpoint, with a chosen subject, nonce,
 * scope and PKCE pair. When no challenge or verifier is given, a verifier is generated and
 * returned (unless a confidential client asks for `pkce: false`).
 */
import { claimsProblem, type Claims } from '../tokens/claims.js';
import { requireClient, requireRedirect, toCodeBinding } from '../login/code-request.js';
import { invalidRequest } from '../oauth-error.js';
import type { OAuthState } from '../oauth-state.js';
import { isValidVerifier, s256 } from './pkce.js';

export interface MintCodeInput {
  readonly client_id: string;
  /** Default: the client's first exact redirect URI, else http://127.0.0.1:8080<loopback path>. */
  readonly redirect_uri?: string | undefined;
  readonly subject?: string | undefined;
  readonly scope?: string | undefined;
  readonly nonce?: string | undefined;
  readonly code_challenge?: string | undefined;
  readonly code_verifier?: string | undefined;
  /** false: no PKCE (confidential clients only). */
  readonly pkce?: boolean | undefined;
  /** Extra ID-token claims for this authorization, as the login page's (claims.ts). */
  readonly claims?: Claims | undefined;
}

export interface MintedCode {
  readonly code: string;
  readonly client_id: string;
  readonly redirect_uri: string;
  /** Present when the verifier was given or generated. */
  readonly code_verifier?: string;
  readonly code_challenge?: string;
  readonly expires_at: string;
}

/** Mints a code; throws OAuthError on any invalid input. */
export function mintCode(state: OAuthState, input: MintCodeInput): MintedCode {
  const client = requireClient(state, input.client_id);
  const fallback =
    client.redirectUris[0] ??
    (client.loopbackPaths[0] === undefined
      ? undefined
      : `http://127.0.0.1:8080${client.loopbackPaths[0]}`);
  const redirectUri = requireRedirect(client, input.redirect_uri ?? fallback);
  let verifier = input.code_verifier;
  let challenge = input.code_challenge;
  if (verifier !== undefined) {
    if (!isValidVerifier(verifier)) {
      throw invalidRequest('PKCE_VERIFIER_MALFORMED', 'code_verifier is malformed (RFC 7636 §4.1)');
    }
    if (challenge !== undefined && challenge !== s256(verifier)) {
      throw invalidRequest('PKCE_VERIFIER_MISMATCH', 'code_challenge does not match code_verifier');
    }
    challenge = s256(verifier);
  } else if (challenge === undefined && input.pkce !== false) {
    verifier = state.random.token(32); // 43 characters of the unreserved set (RFC 7636 §4.1)
    challenge = s256(verifier);
  }
  if (input.claims !== undefined) {
    const problem = claimsProblem(input.claims);
    if (problem !== undefined) throw invalidRequest('CLAIMS_INVALID', problem);
  }
  const binding = toCodeBinding(state, client, redirectUri, {
    claims: input.claims,
    scope: input.scope,
    nonce: input.nonce,
    subject: input.subject,
    codeChallenge: challenge,
    codeChallengeMethod: challenge === undefined ? undefined : 'S256',
  });
  const { code, expiresAtMs } = state.codes.issue(binding, state.clock.now());
  return {
    code,
    client_id: client.id,
    redirect_uri: redirectUri,
    ...(verifier === undefined ? {} : { code_verifier: verifier }),
    ...(challenge === undefined ? {} : { code_challenge: challenge }),
    expires_at: new Date(expiresAtMs).toISOString(),
  };
}
