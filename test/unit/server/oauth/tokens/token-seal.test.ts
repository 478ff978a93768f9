/**
 * Sealed tokens: JWE dir + A256GCM round trip, expiry on the injected clock, tampering and
 * foreign keys are 'invalid', never a throw; tokens of the former jose path still open, and
 * jose opens ours.
 */
import { CompactEncrypt, compactDecrypt, EncryptJWT, errors, jwtDecrypt } from 'jose';
import { describe, expect, it } from 'vitest';
import type { TokenClaims } from '#server/oauth/tokens/token-seal.js';
import { TokenSealer } from '#server/oauth/tokens/token-seal.js';

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
  const token = sealer.seal(claims);
  expect(await sealer.unseal(token, 1500_000)).toEqual({ ok: true, claims });
});

it('reports expiry against the injected clock', async () => {
  const token = sealer.seal(claims);
  expect(await sealer.unseal(token, 2000_000)).toEqual({ ok: false, reason: 'expired' });
});

it('a token sealed with another key is invalid', async () => {
  const other = new TokenSealer(new Uint8Array(32).fill(2));
  const token = other.seal(claims);
  expect(await sealer.unseal(token, 1500_000)).toEqual({ ok: false, reason: 'invalid' });
});

it('a flipped ciphertext character is invalid', async () => {
  const token = sealer.seal(claims);
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

describe('byte compatibility with the jose JWE path (dir + A256GCM)', () => {
  const raw = new Uint8Array(32).fill(1);
  /** The sealing code this server used before node:crypto: jose's EncryptJWT. */
  const joseSeal = async (c: TokenClaims): Promise<string> => {
    const { jti, iat, exp, sub, ...rest } = c;
    return new EncryptJWT({ ...rest })
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
      .setJti(jti)
      .setSubject(sub)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .encrypt(raw);
  };

  it('opens a token sealed by the old jose path', async () => {
    const old = await joseSeal(claims);
    expect(sealer.open(old, 1500_000)).toEqual({ ok: true, claims });
    expect(sealer.open(old, 2000_000)).toEqual({ ok: false, reason: 'expired' });
  });

  it('jose decrypts a new token to the same header and plaintext bytes as its own', async () => {
    const fresh = await compactDecrypt(sealer.seal(claims), raw);
    const old = await compactDecrypt(await joseSeal(claims), raw);
    expect(fresh.protectedHeader).toEqual(old.protectedHeader);
    expect(Buffer.from(fresh.plaintext).equals(Buffer.from(old.plaintext))).toBe(true);
    const { payload } = await jwtDecrypt(sealer.seal(claims), raw, {
      currentDate: new Date(1500_000),
      keyManagementAlgorithms: ['dir'],
      contentEncryptionAlgorithms: ['A256GCM'],
    });
    expect(payload).toEqual(claims);
  });

  it('jose reports a new token expired at the same second as we do', async () => {
    const options = { currentDate: new Date(2000_000) };
    await expect(jwtDecrypt(sealer.seal(claims), raw, options)).rejects.toThrow(errors.JWTExpired);
    expect(sealer.open(sealer.seal(claims), 1999_999)).toMatchObject({ ok: true });
  });
});

describe('every seal is fresh', () => {
  it('sealing the same claims twice gives two IVs and two ciphertexts', () => {
    const ivs = new Set<string>();
    for (let i = 0; i < 500; i++) ivs.add(sealer.seal(claims).split('.')[2] ?? '');
    expect(ivs.size).toBe(500);
  });
});

describe('refusals (invalid, never a throw)', () => {
  const token = sealer.seal(claims);
  const parts = token.split('.');
  const withPart = (i: number, value: string): string =>
    parts.map((p, j) => (j === i ? value : p)).join('.');

  it('a header other than dir + A256GCM is invalid', () => {
    const header = Buffer.from('{"alg":"dir","enc":"A128GCM"}').toString('base64url');
    expect(sealer.open(withPart(0, header), 1500_000)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('a non-empty encrypted key is invalid', () => {
    expect(sealer.open(withPart(1, 'AAAA'), 1500_000)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('a token with four or six parts is invalid', () => {
    expect(sealer.open(parts.slice(0, 4).join('.'), 1500_000)).toMatchObject({ ok: false });
    expect(sealer.open(`${token}.x`, 1500_000)).toMatchObject({ ok: false });
  });

  it('a tag spelled with spare bits set (non-canonical base64url) is invalid', () => {
    const tag = parts[4] ?? '';
    const last = tag.at(-1) ?? 'A';
    // The last of 22 characters carries 2 data bits; its 4 low bits must be zero.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const spare = alphabet[alphabet.indexOf(last) | 1] ?? 'B';
    const token2 = withPart(4, `${tag.slice(0, -1)}${spare}`);
    expect(sealer.open(token2, 1500_000)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('a truncated tag or IV is invalid', () => {
    expect(sealer.open(withPart(4, (parts[4] ?? '').slice(1)), 1500_000)).toMatchObject({
      ok: false,
    });
    expect(sealer.open(withPart(2, (parts[2] ?? '').slice(1)), 1500_000)).toMatchObject({
      ok: false,
    });
  });

  it('authenticated plaintext that is not our claim shape is invalid', async () => {
    const notOurs = await new CompactEncrypt(new TextEncoder().encode('["a"]'))
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
      .encrypt(new Uint8Array(32).fill(1));
    expect(sealer.open(notOurs, 0)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('unseal answers the same as open, as a promise', async () => {
    expect(await sealer.unseal(token, 1500_000)).toEqual(sealer.open(token, 1500_000));
  });
});
