import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  countValidSignatures,
  requireHashes,
  requireLength,
  requireThreshold,
  type Envelope,
  type Root,
  type TufKey,
} from '#protocol/tuf/index.js';

function keyPair(keyid: string): { key: TufKey; privateKey: KeyObject } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const spki = publicKey.export({ format: 'der', type: 'spki' });
  const hex = spki.subarray(spki.length - 32).toString('hex');
  return { key: { keyid, keytype: 'ed25519', scheme: 'ed25519', publicValue: hex }, privateKey };
}

const signedBytes = canonicalJson({ _type: 'root', version: 1 });

function envelope(signers: { keyid: string; privateKey: KeyObject }[]): Envelope {
  return {
    signed: {} as Root,
    signatures: signers.map((s) => ({
      keyid: s.keyid,
      sig: sign(null, signedBytes, s.privateKey).toString('hex'),
    })),
    signedBytes,
    raw: signedBytes,
  };
}

describe('requireThreshold (TUF spec §5.3.4, §5.4.2)', () => {
  const a = keyPair('a');
  const b = keyPair('b');
  const keys = new Map([
    ['a', a.key],
    ['b', b.key],
  ]);

  it('accepts a threshold of valid signatures by listed keys', () => {
    const env = envelope([
      { keyid: 'a', privateKey: a.privateKey },
      { keyid: 'b', privateKey: b.privateKey },
    ]);
    expect(() =>
      requireThreshold(env, keys, { keyids: ['a', 'b'], threshold: 2 }, 'root'),
    ).not.toThrow();
  });

  it('refuses too few valid signatures (THRESHOLD_NOT_MET)', () => {
    const env = envelope([
      { keyid: 'a', privateKey: a.privateKey },
      { keyid: 'b', privateKey: a.privateKey }, // b's slot signed with a's key: invalid
    ]);
    expect(() => requireThreshold(env, keys, { keyids: ['a', 'b'], threshold: 2 }, 'root')).toThrow(
      expect.objectContaining({ code: 'THRESHOLD_NOT_MET' }),
    );
  });

  it('refuses signatures only by a key never listed as THRESHOLD_NOT_MET', () => {
    const env = envelope([{ keyid: 'b', privateKey: b.privateKey }]);
    expect(() => requireThreshold(env, keys, { keyids: ['a'], threshold: 1 }, 'root')).toThrow(
      expect.objectContaining({ code: 'THRESHOLD_NOT_MET' }),
    );
  });

  it('refuses a valid signature by a retired key as KEY_RETIRED', () => {
    const env = envelope([{ keyid: 'b', privateKey: b.privateKey }]);
    const retired = new Map([['b', b.key]]);
    let refusal: unknown;
    try {
      requireThreshold(env, keys, { keyids: ['a'], threshold: 1 }, 'root', retired);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toMatchObject({ code: 'KEY_RETIRED', details: { retired_keyid: 'b' } });
  });

  it('does not name a retired key whose signature is invalid (THRESHOLD_NOT_MET)', () => {
    const env = envelope([{ keyid: 'b', privateKey: a.privateKey }]);
    const retired = new Map([['b', b.key]]);
    expect(() =>
      requireThreshold(env, keys, { keyids: ['a'], threshold: 1 }, 'root', retired),
    ).toThrow(expect.objectContaining({ code: 'THRESHOLD_NOT_MET' }));
  });

  it('counts one public key listed under two keyids once', () => {
    const twin = new Map([
      ['a', a.key],
      ['a2', { ...a.key, keyid: 'a2' }],
    ]);
    const env = envelope([
      { keyid: 'a', privateKey: a.privateKey },
      { keyid: 'a2', privateKey: a.privateKey },
    ]);
    expect(countValidSignatures(env, twin, { keyids: ['a', 'a2'], threshold: 2 })).toBe(1);
  });
});

describe('requireLength and requireHashes (TUF spec §5.5.2, §5.7.3)', () => {
  const data = new TextEncoder().encode('payload');
  const sha256 = createHash('sha256').update(data).digest('hex');
  const sha512 = createHash('sha512').update(data).digest('hex');

  it('accepts matching lengths and every known algorithm', () => {
    expect(() => requireLength(data, 7, 'f')).not.toThrow();
    expect(() =>
      requireHashes(
        data,
        new Map([
          ['sha256', sha256],
          ['sha512', sha512],
        ]),
        'f',
      ),
    ).not.toThrow();
  });

  it('refuses another length (LENGTH_MISMATCH)', () => {
    expect(() => requireLength(data, 8, 'f')).toThrow(
      expect.objectContaining({ code: 'LENGTH_MISMATCH' }),
    );
  });

  it('refuses when any one listed hash differs (HASH_MISMATCH)', () => {
    const hashes = new Map([
      ['sha256', sha256],
      ['sha512', '00'.repeat(64)],
    ]);
    expect(() => requireHashes(data, hashes, 'f')).toThrow(
      expect.objectContaining({ code: 'HASH_MISMATCH' }),
    );
  });

  it('refuses an algorithm it cannot check (UNSUPPORTED_HASH)', () => {
    const hashes = new Map([['unknown-hash', sha256]]);
    expect(() => requireHashes(data, hashes, 'f')).toThrow(
      expect.objectContaining({ code: 'UNSUPPORTED_HASH' }),
    );
  });
});
