/**
 * PKCE (RFC 7636), S256 only: `plain` is refused at binding time (RFC 9700 §2.1.1, T-18).
 */
import { createHash, timingSafeEqual } from 'node:crypto';

// RFC 7636 §4.1: code_verifier = 43*128unreserved
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
// RFC 7636 §4.2: S256 challenge = BASE64URL(SHA256(verifier)) = 43 characters, no padding.
const CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;

/** True when the verifier has RFC 7636 §4.1 syntax. */
export function isValidVerifier(verifier: string): boolean {
  return VERIFIER.test(verifier);
}

/** True when the challenge is a well-formed S256 challenge. */
export function isValidChallenge(challenge: string): boolean {
  return CHALLENGE.test(challenge);
}

/** BASE64URL(SHA256(ASCII(verifier))) (RFC 7636 §4.2). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** Constant-time check of a verifier against its S256 challenge (RFC 7636 §4.6, T-16). */
export function verifierMatches(verifier: string, challenge: string): boolean {
  const a = Buffer.from(s256(verifier));
  const b = Buffer.from(challenge);
  return a.length === b.length && timingSafeEqual(a, b);
}
