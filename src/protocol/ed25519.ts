/**
 * The only place that touches Ed25519. Strict RFC 8032 verification (not ZIP-215): small-order
 * public keys, non-canonical encodings and S >= L are refused. Proven by test/vectors.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  sign as nodeSign,
  verify as nodeVerify,
  type KeyObject,
} from 'node:crypto';
import * as ed from '@noble/ed25519';

// @noble/ed25519 v3 needs a SHA-512 for its synchronous API; node:crypto's is constant and fast.
ed.hashes.sha512 = (message: Uint8Array): Uint8Array<ArrayBuffer> =>
  new Uint8Array(createHash('sha512').update(message).digest());

export const PUBLIC_KEY_BYTES = 32;
export const SECRET_KEY_BYTES = 32;
export const SIGNATURE_BYTES = 64;

/**
 * Verifies `signature` over `message` under `publicKey`. Never throws: malformed input is `false`.
 * Accepts exactly what `verifyEd25519Portable` accepts, much faster (docs/PROTOCOL.md §2.5,
 * Ed25519 verification): node's OpenSSL says yes first, and only a no is asked again of the
 * portable verifier.
 *
 * Why a native yes is a portable yes: OpenSSL checks S < L, decodes A, and compares the
 * canonical encoding of [S]B - [k]A with R's bytes (k hashed from the bytes as received, as in
 * noble). For a key that noble decodes strictly and that is not of small order (`nativeKeyOf`
 * checks, once per key), both decode A to the same point, so R decodes (strictly) to
 * [S]B - [k]A and noble's cofactored equation holds too. A native no may still be a portable
 * yes (a crafted signature with a small-order part passes the cofactored equation only), so the
 * portable verifier decides every no: the accepted set is noble's, never wider or narrower.
 */
export function verifyEd25519(
  signature: Uint8Array,
  message: Uint8Array,
  publicKey: Uint8Array,
): boolean {
  return (
    verifyEd25519Native(signature, message, publicKey) ||
    verifyEd25519Portable(signature, message, publicKey)
  );
}

/** The pure-JS strict verifier (@noble/ed25519, zip215: false): the reference semantics. */
export function verifyEd25519Portable(
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

// SPKI (RFC 8410 §4) prefix of an Ed25519 public key; the 32 key bytes follow it.
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
/** Bounds the native key cache: a run verifies under a handful of keys. */
const MAX_NATIVE_KEYS = 64;
/** Hex key -> its KeyObject, or null when the fast path must not be used for it. */
const nativeKeys = new Map<string, KeyObject | null>();

/**
 * The KeyObject of a public key that noble decodes strictly (y < p, no negative zero) and that
 * is not of small order; undefined for any other key, which the portable verifier alone judges.
 */
function nativeKeyOf(publicKey: Uint8Array): KeyObject | undefined {
  const hex = Buffer.from(publicKey).toString('hex');
  let key = nativeKeys.get(hex);
  if (key === undefined) {
    key = null;
    try {
      if (!ed.Point.fromBytes(publicKey, false).isSmallOrder()) {
        key = createPublicKey({
          key: Buffer.concat([SPKI_ED25519_PREFIX, publicKey]),
          format: 'der',
          type: 'spki',
        });
      }
    } catch {
      // Not a strict encoding of a point: portable only (which refuses it).
    }
    if (nativeKeys.size >= MAX_NATIVE_KEYS) nativeKeys.clear();
    nativeKeys.set(hex, key);
  }
  return key ?? undefined;
}

/**
 * Makes `publicKey`'s native form now (checked and cached as `verifyEd25519` would at its first
 * use), so that first verify does not pay for it: a run calls this while the signed answer is
 * on its way (docs/UPDATER.md §11.3). Never throws; a key of the wrong length is left alone.
 */
export function prepareEd25519Key(publicKey: Uint8Array): void {
  if (publicKey.length === PUBLIC_KEY_BYTES) nativeKeyOf(publicKey);
}

/** OpenSSL's Ed25519 verify (cofactorless, S < L, R compared as bytes); a throw is a no. */
function nativeVerifies(signature: Uint8Array, message: Uint8Array, key: KeyObject): boolean {
  try {
    return nodeVerify(null, message, key, signature);
  } catch {
    return false;
  }
}

/** The native half alone (tests prove it never says yes where the portable verifier says no). */
export function verifyEd25519Native(
  signature: Uint8Array,
  message: Uint8Array,
  publicKey: Uint8Array,
): boolean {
  if (signature.length !== SIGNATURE_BYTES || publicKey.length !== PUBLIC_KEY_BYTES) return false;
  const key = nativeKeyOf(publicKey);
  return key !== undefined && nativeVerifies(signature, message, key);
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
 * Signs with node's native Ed25519 (OpenSSL), much faster than the portable path
 * (docs/PROTOCOL.md §2.5, Ed25519 verification), for a server that signs one freshness
 * statement per nonce request (docs/PROTOCOL.md §2.7.6).
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
