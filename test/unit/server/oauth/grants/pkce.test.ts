/**
 * PKCE S256 (RFC 7636), checked against the RFC's own example (Appendix B).
 */
import { expect, it } from 'vitest';
import {
  isValidChallenge,
  isValidVerifier,
  s256,
  verifierMatches,
} from '#server/oauth/grants/pkce.js';

const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

it('RFC 7636 Appendix B: S256 of the example verifier is the example challenge', () => {
  expect(s256(VERIFIER)).toBe(CHALLENGE);
  expect(verifierMatches(VERIFIER, CHALLENGE)).toBe(true);
});

it('T-16 a different verifier does not match', () => {
  expect(verifierMatches(`${VERIFIER.slice(0, -1)}l`, CHALLENGE)).toBe(false);
});

it('T-16 a challenge of another length does not match (no throw)', () => {
  expect(verifierMatches(VERIFIER, 'short')).toBe(false);
});

it('T-14 verifier syntax: 43-128 unreserved characters', () => {
  expect(isValidVerifier('a'.repeat(43))).toBe(true);
  expect(isValidVerifier('-._~'.repeat(32))).toBe(true);
  expect(isValidVerifier('a'.repeat(42))).toBe(false);
  expect(isValidVerifier('a'.repeat(129))).toBe(false);
  expect(isValidVerifier(`${'a'.repeat(42)}=`)).toBe(false);
});

it('T-18 a S256 challenge is exactly 43 base64url characters', () => {
  expect(isValidChallenge(CHALLENGE)).toBe(true);
  expect(isValidChallenge(`${CHALLENGE}=`)).toBe(false);
  expect(isValidChallenge(VERIFIER.replace('-', '+'))).toBe(false);
});
