/**
 * Raw manifest bytes + pinned keys -> VerifiedManifest, or an UpdateError. The order is fixed
 * (STYLE.md habit 4): size cap, envelope structure, signature over the exact received payload
 * bytes (DSSE PAE), payload type, and only then the payload is parsed.
 */
import { createHash } from 'node:crypto';
import { verifyEd25519 } from '../protocol/ed25519.js';
import { MANIFEST_PAYLOAD_TYPE, pae, parseEnvelope } from '../protocol/envelope.js';
import { keyIdOf, parsePubkeyHex } from '../protocol/keys.js';
import { parseManifest, type ParsedManifest } from '../protocol/manifest.js';
import { ProtocolError, type ProtocolErrorCode } from '../protocol/protocol-error.js';
import { UpdateError, type UpdateErrorCode } from './errors.js';

declare const verifiedBrand: unique symbol;

/**
 * A manifest whose signature was checked under a pinned key. Only `verifyManifest` makes one
 * (the brand cannot be forged by a cast-free literal), so planning can only see checked data.
 */
export interface VerifiedManifest {
  readonly [verifiedBrand]: true;
  readonly manifest: ParsedManifest;
  /** Lowercase hex SHA-256 of the signed payload bytes (the equivocation fingerprint). */
  readonly payloadSha256: string;
  /** keyid of the pinned key whose signature was accepted. */
  readonly keyid: string;
  /** The exact envelope bytes received, kept for `verify` and the audit log. */
  readonly envelope: Uint8Array;
}

/** A pinned node public key with its keyid precomputed. */
export interface PinnedKey {
  readonly keyid: string;
  readonly publicKey: Uint8Array;
}

/** Parses pinned node_pubkey hex strings; none, or any malformed one, is CONFIG_INVALID. */
export function pinKeys(hexKeys: readonly string[]): readonly PinnedKey[] {
  if (hexKeys.length === 0) {
    throw new UpdateError('CONFIG_INVALID', 'at least one pinned public key is required');
  }
  return hexKeys.map((hex) => {
    try {
      const publicKey = parsePubkeyHex(hex);
      return { keyid: keyIdOf(publicKey), publicKey };
    } catch (cause) {
      throw new UpdateError('CONFIG_INVALID', 'a pinned key is not 64 lowercase hex', { cause });
    }
  });
}

const PROTOCOL_TO_UPDATE: Readonly<Record<ProtocolErrorCode, UpdateErrorCode>> = {
  ENVELOPE_MALFORMED: 'ENVELOPE_MALFORMED',
  MANIFEST_MALFORMED: 'MANIFEST_MALFORMED',
  UNSAFE_NAME: 'UNSAFE_NAME',
  // Names equal up to case collide on macOS and Windows file systems: a path attack.
  DUPLICATE_NAME: 'UNSAFE_NAME',
  UNSORTED_NAMES: 'MANIFEST_MALFORMED',
  BAD_DIGEST: 'BAD_DIGEST',
  BAD_VERSION: 'MANIFEST_MALFORMED',
  BAD_KEY: 'CONFIG_INVALID',
};

/** Maps a wire-format error onto the updater taxonomy (anything else is rethrown). */
export function fromProtocolError(error: unknown): UpdateError {
  if (error instanceof UpdateError) return error;
  if (error instanceof ProtocolError) {
    return new UpdateError(PROTOCOL_TO_UPDATE[error.code], error.message, { cause: error });
  }
  throw error;
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
 * Verifies envelope bytes. A signature by any one pinned key suffices; signatures under
 * unpinned keyids are ignored. UNKNOWN_KEY when no signature names a pinned key,
 * SIGNATURE_INVALID when the ones that do all fail.
 *
 * @example
 * const vm = verifyManifest(bytes, pinKeys([nodePubkeyHex]), limits.maxManifestBytes);
 */
export function verifyManifest(
  bytes: Uint8Array,
  pinned: readonly PinnedKey[],
  maxManifestBytes: number,
): VerifiedManifest {
  if (pinned.length === 0) throw new UpdateError('NO_PINNED_KEY', 'no pinned public key');
  if (bytes.length > maxManifestBytes) {
    throw new UpdateError('MANIFEST_TOO_LARGE', `manifest exceeds ${maxManifestBytes} bytes`);
  }
  let envelope;
  try {
    envelope = parseEnvelope(bytes);
  } catch (error) {
    throw fromProtocolError(error);
  }
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
  let manifest: ParsedManifest;
  try {
    manifest = parseManifest(envelope.payload);
  } catch (error) {
    throw fromProtocolError(error);
  }
  return {
    manifest,
    payloadSha256: createHash('sha256').update(envelope.payload).digest('hex'),
    keyid: acceptedKeyid,
    envelope: bytes,
  } as VerifiedManifest;
}
