/**
 * src/protocol/ed25519.ts against published vectors (RFC 8032 §7.1) and strictness cases
 * (S >= L, small-order keys, non-canonical encodings). Sources are recorded in test/vectors/.
 */
import {
  createPrivateKey,
  createPublicKey,
  sign as nodeSign,
  verify as nodeVerify,
} from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as ed from '@noble/ed25519';
import { describe, expect, it } from 'vitest';
import { publicKeyOf, signEd25519, verifyEd25519 } from '#protocol/ed25519.js';

interface RfcVector {
  readonly name: string;
  readonly secret_key: string;
  readonly public_key: string;
  readonly message: string;
  readonly signature: string;
}

interface StrictCase {
  readonly name: string;
  readonly public_key: string;
  readonly message: string;
  readonly signature: string;
  readonly zip215: boolean;
  readonly node_crypto: boolean;
}

function load<T>(file: string): T {
  return JSON.parse(readFileSync(new URL(`../../vectors/${file}`, import.meta.url), 'utf8')) as T;
}

const rfc = load<{ url: string; vectors: RfcVector[] }>('ed25519-rfc8032.json');
const strict = load<{ cases: StrictCase[] }>('ed25519-strictness.json');
const hex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'hex'));
const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const b64u = (text: string): string => Buffer.from(text, 'hex').toString('base64url');

/** The group order L (RFC 8032 §5.1). */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

function scalarLe(bytes: Uint8Array): bigint {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i] ?? 0);
  return n;
}

function scalarBytes(n: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    out[i] = Number(n & 0xffn);
    n >>= 8n;
  }
  return out;
}

function flipBit(bytes: Uint8Array, index: number): Uint8Array {
  const copy = new Uint8Array(bytes);
  copy[index] = (copy[index] ?? 0) ^ 0x01;
  return copy;
}

describe('RFC 8032 §7.1 vectors', () => {
  it('records its source', () => {
    expect(rfc.url).toBe('https://www.rfc-editor.org/rfc/rfc8032#section-7.1');
    expect(rfc.vectors.length).toBeGreaterThanOrEqual(4);
  });

  for (const v of rfc.vectors) {
    describe(v.name, () => {
      it('derives the published public key from the seed', () => {
        expect(toHex(publicKeyOf(hex(v.secret_key)))).toBe(v.public_key);
      });

      it('signs to the published signature (deterministic)', () => {
        expect(toHex(signEd25519(hex(v.message), hex(v.secret_key)))).toBe(v.signature);
      });

      it('verifies the published signature', () => {
        expect(verifyEd25519(hex(v.signature), hex(v.message), hex(v.public_key))).toBe(true);
      });

      it('agrees with node:crypto (OpenSSL) on the same bytes', () => {
        const key = createPrivateKey({
          key: { kty: 'OKP', crv: 'Ed25519', d: b64u(v.secret_key), x: b64u(v.public_key) },
          format: 'jwk',
        });
        const pub = createPublicKey({
          key: { kty: 'OKP', crv: 'Ed25519', x: b64u(v.public_key) },
          format: 'jwk',
        });
        expect(nodeSign(null, hex(v.message), key).toString('hex')).toBe(v.signature);
        expect(nodeVerify(null, hex(v.message), pub, hex(v.signature))).toBe(true);
      });

      it('refuses the signature with one bit of R flipped', () => {
        expect(verifyEd25519(flipBit(hex(v.signature), 0), hex(v.message), hex(v.public_key))).toBe(
          false,
        );
      });

      it('refuses the signature with one bit of S flipped', () => {
        expect(
          verifyEd25519(flipBit(hex(v.signature), 40), hex(v.message), hex(v.public_key)),
        ).toBe(false);
      });

      it('refuses the signature over a different message', () => {
        const other = new Uint8Array([...hex(v.message), 0x00]);
        expect(verifyEd25519(hex(v.signature), other, hex(v.public_key))).toBe(false);
      });
    });
  }

  it('refuses a signature under another vector’s public key', () => {
    const [a, b] = rfc.vectors;
    if (a === undefined || b === undefined) throw new Error('need two vectors');
    expect(verifyEd25519(hex(a.signature), hex(a.message), hex(b.public_key))).toBe(false);
  });
});

describe('strict RFC 8032 verification (not ZIP-215)', () => {
  for (const c of strict.cases) {
    describe(c.name, () => {
      it('is refused by verifyEd25519', () => {
        expect(verifyEd25519(hex(c.signature), hex(c.message), hex(c.public_key))).toBe(false);
      });

      it('behaves as recorded under a permissive (ZIP-215) verifier', () => {
        // Proves the case exercises strictness: where a permissive verifier accepts, only our
        // strict checks stand between the forgery and acceptance.
        let accepted: boolean;
        try {
          accepted = ed.verify(hex(c.signature), hex(c.message), hex(c.public_key), {
            zip215: true,
          });
        } catch {
          accepted = false;
        }
        expect(accepted).toBe(c.zip215);
      });
    });
  }

  it('accepts the S >= L case once S is reduced mod L (S >= L is its only defect)', () => {
    const c = strict.cases.find((x) => x.name.startsWith('S >= L'));
    if (c === undefined) throw new Error('S >= L case missing');
    const sig = hex(c.signature);
    const s = scalarLe(sig.subarray(32));
    expect(s >= L).toBe(true);
    const reduced = new Uint8Array([...sig.subarray(0, 32), ...scalarBytes(s % L)]);
    expect(verifyEd25519(reduced, hex(c.message), hex(c.public_key))).toBe(true);
  });
});

describe('malformed input is false, never a throw', () => {
  const v = rfc.vectors[0];
  if (v === undefined) throw new Error('no vectors');

  it('refuses a 63-byte signature', () => {
    expect(verifyEd25519(hex(v.signature).subarray(0, 63), hex(v.message), hex(v.public_key))).toBe(
      false,
    );
  });

  it('refuses a 65-byte signature', () => {
    const long = new Uint8Array([...hex(v.signature), 0]);
    expect(verifyEd25519(long, hex(v.message), hex(v.public_key))).toBe(false);
  });

  it('refuses a 31-byte public key', () => {
    expect(verifyEd25519(hex(v.signature), hex(v.message), hex(v.public_key).subarray(0, 31))).toBe(
      false,
    );
  });

  it('refuses a public key that is not a curve point', () => {
    // y = 2 is not the y-coordinate of any Ed25519 point (x^2 would be a non-square).
    const notAPoint = hex(`02${'00'.repeat(31)}`);
    expect(verifyEd25519(hex(v.signature), hex(v.message), notAPoint)).toBe(false);
  });
});
