/**
 * Sealed tokens: JWE dir + A256GCM round trip, expiry on the injected clock, tampering and
 * foreign keys are 'invalid', never a throw.
 */
import { expect, it } from 'vitest';
import type { TokenClaims } from '../../../../server/src/oauth/token-seal.js';
import { TokenSealer } from '../../../../server/src/oauth/token-seal.js';

const claims: TokenClaims = {
  jti: 'j'.repeat(43),
  kind: 'access',
  cid: 'desktop-app',
  sub: 'alice',
  scope: 'openid',
  gid: 'g1',
  iat: 1000,
  exp: 2000,
};
const sealer = new TokenSealer(new Uint8Array(32).fill(1));

it('round-trips the claims before expiry', async () => {
  const token = await sealer.seal(claims);
  expect(await sealer.unseal(token, 1500_000)).toEqual({ ok: true, claims });
});

it('reports expiry against the injected clock', async () => {
  const token = await sealer.seal(claims);
  expect(await sealer.unseal(token, 2000_000)).toEqual({ ok: false, reason: 'expired' });
});

it('a token sealed with another key is invalid', async () => {
  const other = new TokenSealer(new Uint8Array(32).fill(2));
  const token = await other.seal(claims);
  expect(await sealer.unseal(token, 1500_000)).toEqual({ ok: false, reason: 'invalid' });
});

it('a flipped ciphertext character is invalid', async () => {
  const token = await sealer.seal(claims);
  const parts = token.split('.');
  const ct = parts[3] ?? '';
  parts[3] = `${ct[0] === 'A' ? 'B' : 'A'}${ct.slice(1)}`;
  expect(await sealer.unseal(parts.join('.'), 1500_000)).toEqual({ ok: false, reason: 'invalid' });
});

it('an oversize or non-base64url token is invalid without decryption', async () => {
  expect(await sealer.unseal('a'.repeat(5000), 0)).toEqual({ ok: false, reason: 'invalid' });
  expect(await sealer.unseal('a b', 0)).toEqual({ ok: false, reason: 'invalid' });
});

it('refuses a key that is not 32 bytes', () => {
  expect(() => new TokenSealer(new Uint8Array(16))).toThrow(RangeError);
});
