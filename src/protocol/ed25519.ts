/**
 * The only place that touches Ed25519. Strict RFC 8032 verification (not ZIP-215): small-order
 * public keys, non-canonical encodings and S >= L are refused. Proven by test/vectors.
 */
import { createHash, createPrivateKey, sign as nodeSign } from 'node:crypto';
import * as ed from '@noble/ed25519';

// @noble/ed25519 v3 needs a SHA-512 for its synchronous API; node:crypto's is constant and fast.
ed.hashes.sha512 = (message: Uint8Array): Uint8Array<ArrayBuffer> =>
  new Uint8Array(createHash('sha512').update(message).digest());

export const PUBLIC_KEY_BYTES = 32;
export const SECRET_KEY_BYTES = 32;
export const SIGNATURE_BYTES = 64;

/** Verifies `signature` over `message` under `publicKey`. Never throws: malformed input is `false`. */
export function verifyEd25519(
  signature: Uint8Array,
  message: Uint8Array,
  publicKey: Uint8Array,
): boolean {
  if (signature.length !== SIGNATURE_BYTES || publicKey.length !== PUBLIC_KEY_BYTES) return false;
  try {
    return ed.verify(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
}

/** Signs `message` with a 32-byte secret seed. */
export function signEd25519(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
  return ed.sign(message, secretKey);
}

/** Derives the 32-byte public key of a 32-byte secret seed. */
export function publicKeyOf(secretKey: Uint8Array): Uint8Array {
  return ed.getPublicKey(secretKey);
}

/** A fresh random key pair (the seed comes from the platform CSPRNG). */
export function generateKeyPair(): { secretKey: Uint8Array; publicKey: Uint8Array } {
  const secretKey = ed.utils.randomSecretKey();
  return { secretKey, publicKey: ed.getPublicKey(secretKey) };
}

// PKCS #8 (RFC 8410 §7) prefix of an Ed25519 private key; the 32-byte seed follows it.
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * Signs with node's native Ed25519 (OpenSSL): about 15x faster than the portable path, for a
 * server that signs one freshness statement per nonce request (docs/PROTOCOL.md §2.7.6).
 * RFC 8032 signing is deterministic, so the signatures are byte-identical to `signEd25519`'s
 * (proven by the RFC 8032 vectors); verification stays strict in `verifyEd25519`.
 */
export function nativeSigner(secretKey: Uint8Array): (message: Uint8Array) => Uint8Array {
  if (secretKey.length !== SECRET_KEY_BYTES) throw new RangeError('an Ed25519 seed has 32 bytes');
  const key = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, secretKey]),
    format: 'der',
    type: 'pkcs8',
  });
  return (message) => new Uint8Array(nodeSign(null, message, key));
}
