/**
 * Signature verification for the key types and schemes TUF names (TUF spec §4.2, §4.3), in the
 * encodings python-tuf / securesystemslib emit: ed25519 keys as 64 hex characters; ecdsa
 * (ecdsa-sha2-nistp256) and rsa (rsassa-pss-sha256) keys as SPKI PEM. Signatures are hex;
 * ecdsa ones are DER. Never throws: a key we cannot use verifies nothing (TUF spec §4.2: a
 * client ignores keys and schemes it does not know, it does not refuse the metadata).
 */
import { constants, createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { TufKey } from './metadata.js';

const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const HEX = /^(?:[0-9a-f]{2})+$/;

/** True when `keytype` + `scheme` is one this client can verify. */
export function isSupportedKey(key: TufKey): boolean {
  return publicKeyOf(key) !== undefined;
}

export function verifySignature(key: TufKey, signatureHex: string, message: Uint8Array): boolean {
  const publicKey = publicKeyOf(key);
  if (publicKey === undefined || !HEX.test(signatureHex)) return false;
  const signature = Buffer.from(signatureHex, 'hex');
  try {
    if (key.scheme === 'ed25519') return verify(null, message, publicKey, signature);
    if (key.scheme === 'ecdsa-sha2-nistp256') {
      return verify('sha256', message, { key: publicKey, dsaEncoding: 'der' }, signature);
    }
    return verify(
      'sha256',
      message,
      {
        key: publicKey,
        padding: constants.RSA_PKCS1_PSS_PADDING,
        // securesystemslib verifies with PSS.AUTO: any salt length the signer chose.
        saltLength: constants.RSA_PSS_SALTLEN_AUTO,
      },
      signature,
    );
  } catch {
    return false;
  }
}

/** The node:crypto key for a supported key type and scheme, else undefined. */
function publicKeyOf(key: TufKey): KeyObject | undefined {
  const value = key.publicValue;
  if (value === undefined) return undefined;
  try {
    if (key.keytype === 'ed25519' && key.scheme === 'ed25519') {
      if (value.length !== 64 || !HEX.test(value)) return undefined;
      const der = Buffer.concat([SPKI_ED25519_PREFIX, Buffer.from(value, 'hex')]);
      return createPublicKey({ key: der, format: 'der', type: 'spki' });
    }
    if (
      (key.keytype === 'ecdsa' || key.keytype === 'ecdsa-sha2-nistp256') &&
      key.scheme === 'ecdsa-sha2-nistp256'
    ) {
      const pem = createPublicKey({ key: value, format: 'pem' });
      const curve = pem.asymmetricKeyDetails?.namedCurve;
      return pem.asymmetricKeyType === 'ec' && curve === 'prime256v1' ? pem : undefined;
    }
    if (key.keytype === 'rsa' && key.scheme === 'rsassa-pss-sha256') {
      const pem = createPublicKey({ key: value, format: 'pem' });
      return pem.asymmetricKeyType === 'rsa' ? pem : undefined;
    }
  } catch {
    return undefined;
  }
  return undefined;
}
