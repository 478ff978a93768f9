/**
 * Signing TUF metadata (TUF spec §4.2): every signature covers the canonical JSON of `signed`,
 * and a keyid is the hex SHA-256 of the canonical JSON of the public key object, as
 * securesystemslib computes it (so python-tuf and tuf-js name our keys the same way).
 * Ed25519 only: the key type the repository signs with; verification takes more (key-verify.ts).
 */
import { createHash } from 'node:crypto';
import { canonicalJson, metadataFileJson } from './canonical-json.js';
import type { JsonObject } from './strict-json.js';

/** A key that signs metadata: its TUF key object and a signing function over bytes. */
export interface TufSigner {
  /** Lowercase hex of the 32-byte Ed25519 public key. */
  readonly publicHex: string;
  readonly sign: (message: Uint8Array) => Uint8Array;
}

/** The public key object root and delegations list (TUF spec §4.2, "ed25519" keytype). */
export function ed25519KeyObject(publicHex: string): JsonObject {
  return { keytype: 'ed25519', scheme: 'ed25519', keyval: { public: publicHex } };
}

/** TUF spec §4.2: KEYID is the SHA-256 of the canonical JSON of the key object. */
export function tufKeyId(publicHex: string): string {
  return createHash('sha256')
    .update(canonicalJson(ed25519KeyObject(publicHex)))
    .digest('hex');
}

/**
 * The metadata file `{"signed": …, "signatures": […]}` signed by each of `signers`, as the
 * bytes a repository serves (metadataFileJson: valid JSON even when a string holds a control
 * character). Signatures are sorted by keyid so equal inputs give equal bytes.
 */
export function signMetadata(signed: JsonObject, signers: readonly TufSigner[]): Uint8Array {
  const message = canonicalJson(signed);
  const signatures = signers
    .map((signer) => ({
      keyid: tufKeyId(signer.publicHex),
      sig: Buffer.from(signer.sign(message)).toString('hex'),
    }))
    .sort((a, b) => (a.keyid < b.keyid ? -1 : a.keyid > b.keyid ? 1 : 0));
  return metadataFileJson({ signatures, signed });
}

/**
 * Adds signatures to already signed metadata bytes (k-of-n co-signing, TUF spec §4.3: each
 * holder of a key signs the same `signed`). A keyid already present is replaced, not doubled.
 */
export function addSignatures(
  document: { readonly signed: JsonObject; readonly signatures: readonly JsonObject[] },
  signers: readonly TufSigner[],
): Uint8Array {
  const message = canonicalJson(document.signed);
  const byKeyid = new Map<string, JsonObject>();
  for (const entry of document.signatures) {
    const keyid = entry['keyid'];
    if (typeof keyid === 'string') byKeyid.set(keyid, entry);
  }
  for (const signer of signers) {
    const keyid = tufKeyId(signer.publicHex);
    byKeyid.set(keyid, { keyid, sig: Buffer.from(signer.sign(message)).toString('hex') });
  }
  const signatures = [...byKeyid.keys()].sort().map((k) => byKeyid.get(k) as JsonObject);
  return metadataFileJson({ signatures, signed: document.signed });
}
