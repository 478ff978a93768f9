/**
 * Format 1 verification (docs/PROTOCOL.md §2.5): one DSSE envelope signed by a pinned key. The
 * answer-level checks that refuse it (a nonce sent, a key set trusted) stay in verify.ts; this
 * is only what a format 1 envelope must satisfy on its own.
 */
import { createHash } from 'node:crypto';
import { verifyEd25519 } from '#protocol/ed25519.js';
import {
  MANIFEST_PAYLOAD_TYPE,
  pae,
  parseEnvelope,
  type ParsedEnvelope,
} from '#protocol/envelope.js';
import { parseManifest, type ParsedManifest } from '#protocol/manifest.js';
import { UpdateError } from '../errors.js';
import type { PinnedKey } from './trust-checks.js';
import type { VerifiedManifest } from './verified-manifest.js';
import { fromProtocolError } from '../wire-errors.js';

/** The first check of any answer (§2.5, §2.7.5): nothing larger is parsed. */
export function sizeCap(bytes: Uint8Array, maxManifestBytes: number): void {
  if (bytes.length > maxManifestBytes) {
    throw new UpdateError('MANIFEST_TOO_LARGE', `manifest exceeds ${maxManifestBytes} bytes`);
  }
}

/** At most this many keyids of a refused envelope are named (a hostile one may carry many). */
export const MAX_KEYIDS_NAMED = 8;

/** The keyids an envelope was signed with and the pinned ones, for a refusal's details. */
function keyidDetails(
  signatures: readonly { readonly keyid: string }[],
  pinned: readonly PinnedKey[],
): { keyids_seen: readonly string[]; keyids_pinned: readonly string[] } {
  const seen = [...new Set(signatures.map((s) => s.keyid))];
  return {
    keyids_seen: seen.slice(0, MAX_KEYIDS_NAMED),
    keyids_pinned: pinned.map((k) => k.keyid),
  };
}

/** "none", or the first 16 hex digits of each keyid (the details have them whole). */
function describeKeyids(keyids: readonly string[]): string {
  return keyids.length === 0 ? 'none' : keyids.map((k) => `${k.slice(0, 16)}…`).join(', ');
}

/**
 * Verifies format 1 envelope bytes (§2.5). A signature by any one pinned key suffices;
 * signatures under unpinned keyids are ignored. UNKNOWN_KEY when no signature names a pinned
 * key, SIGNATURE_INVALID when the ones that do all fail. `verifyAnswer` is what a run calls:
 * it refuses this format once a key set is trusted.
 *
 * @example
 * const verified = verifyManifest(bytes, pinKeys([nodePubkeyHex]), limits.maxManifestBytes);
 */
export function verifyManifest(
  bytes: Uint8Array,
  pinned: readonly PinnedKey[],
  maxManifestBytes: number,
): VerifiedManifest {
  if (pinned.length === 0) throw new UpdateError('NO_PINNED_KEY', 'no pinned public key');
  sizeCap(bytes, maxManifestBytes);
  let envelope;
  try {
    envelope = parseEnvelope(bytes);
  } catch (error) {
    throw fromProtocolError(error);
  }
  return verifyFormatOne(envelope, bytes, pinned);
}

/**
 * The §2.5 checks of a parsed format 1 envelope: signature, payload type, then the manifest.
 * `checkedDigest`: the installed set's id; a payload with that SHA-256 passed the artifact list
 * rules when the set was accepted, so its list is not walked again (`TrustInput`).
 */
export function verifyFormatOne(
  envelope: ParsedEnvelope,
  bytes: Uint8Array,
  pinned: readonly PinnedKey[],
  checkedDigest?: string,
): VerifiedManifest {
  const message = pae(envelope.payloadType, envelope.payload);
  let named = false;
  let acceptedKeyid: string | undefined;
  for (const signature of envelope.signatures) {
    const key = pinned.find((k) => k.keyid === signature.keyid);
    if (key === undefined) continue;
    named = true;
    if (verifyEd25519(signature.sig, message, key.publicKey)) {
      acceptedKeyid = key.keyid;
      break;
    }
  }
  if (!named) {
    const details = keyidDetails(envelope.signatures, pinned);
    throw new UpdateError(
      'UNKNOWN_KEY',
      `no signature by a pinned key (signed by ${describeKeyids(details.keyids_seen)}; ` +
        `pinned ${describeKeyids(details.keyids_pinned)})`,
      { details },
    );
  }
  if (acceptedKeyid === undefined) {
    throw new UpdateError('SIGNATURE_INVALID', 'signature does not verify under the pinned key', {
      details: keyidDetails(envelope.signatures, pinned),
    });
  }
  // The type is inside the signed PAE, so it is checked after the signature, before parsing.
  if (envelope.payloadType !== MANIFEST_PAYLOAD_TYPE) {
    throw new UpdateError('WRONG_PAYLOAD_TYPE', 'signed payload is not an update manifest');
  }
  const setId = createHash('sha256').update(envelope.payload).digest('hex');
  let manifest: ParsedManifest;
  try {
    manifest = parseManifest(envelope.payload, { listChecked: setId === checkedDigest });
  } catch (error) {
    throw fromProtocolError(error);
  }
  return {
    format: 1,
    manifest,
    setId,
    keyid: acceptedKeyid,
    envelope: bytes,
  } as VerifiedManifest;
}
