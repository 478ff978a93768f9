/** nativeSigner (node's OpenSSL Ed25519) against RFC 8032 §7.1 and the portable signer. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateKeyPair, nativeSigner, signEd25519, verifyEd25519 } from '#protocol/ed25519.js';

interface RfcVector {
  readonly name: string;
  readonly secret_key: string;
  readonly message: string;
  readonly signature: string;
}

const rfc = JSON.parse(
  readFileSync(new URL('../../vectors/ed25519-rfc8032.json', import.meta.url), 'utf8'),
) as { vectors: RfcVector[] };
const hex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'hex'));
const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

describe('nativeSigner', () => {
  for (const v of rfc.vectors) {
    it(`signs ${v.name} to the published signature`, () => {
      expect(toHex(nativeSigner(hex(v.secret_key))(hex(v.message)))).toBe(v.signature);
    });
  }

  it('gives byte-identical signatures to the portable signer, which verify strictly', () => {
    const { secretKey, publicKey } = generateKeyPair();
    const sign = nativeSigner(secretKey);
    for (let n = 0; n < 20; n++) {
      const message = new Uint8Array(n * 37).map((_, i) => (i * 7 + n) & 0xff);
      const sig = sign(message);
      expect(toHex(sig)).toBe(toHex(signEd25519(message, secretKey)));
      expect(verifyEd25519(sig, message, publicKey)).toBe(true);
    }
  });

  it('refuses a seed that is not 32 bytes', () => {
    expect(() => nativeSigner(new Uint8Array(31))).toThrow(RangeError);
  });
});
