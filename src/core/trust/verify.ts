/**
 * Raw answer bytes + what the client trusts -> VerifiedManifest, or an UpdateError. The order
 * is fixed (docs/ARCHITECTURE.md §Habits, docs/PROTOCOL.md §2.5 and §2.7.5): size cap, structure, then
 * signatures over the exact received payload bytes (DSSE PAE) and payload types, and only then
 * the payloads are parsed. A format 2 answer is checked from the trusted key set (or the
 * pinned keys) by trust-checks.ts; a format 1 envelope by verify-format-one.ts, only while no key
 * set is trusted.
 */
import { prepareEd25519Key } from '#protocol/ed25519.js';
import { parseEnvelope, type ParsedEnvelope } from '#protocol/envelope.js';
import { keyOwners } from '#protocol/key-set.js';
import { keyIdOf, parsePubkeyHex } from '#protocol/keys.js';
import { parseManifestAnswer, type ManifestAnswer } from '#protocol/manifest-answer.js';
import type { ManifestArtifact } from '#protocol/manifest.js';
import { parseRelease, RELEASE_PAYLOAD_TYPE, releaseDigest } from '#protocol/release.js';
import { verifyRole } from '#protocol/role-signatures.js';
import { UpdateError } from '../errors.js';
import { trustedKeysOf, trustedKeySet, type UpdaterState } from '../state.js';
import {
  checkAnswer,
  mergeLinks,
  type AnswerParts,
  type PinnedKey,
  type TrustInput,
} from './trust-checks.js';
import { sizeCap, verifyFormatOne } from './verify-format-one.js';
import { fromProtocolError, fromTrustError } from '../wire-errors.js';

export { fromProtocolError } from '../wire-errors.js';
export { needsKeyChain } from './trust-checks.js';
export { MAX_KEYIDS_NAMED, verifyManifest } from './verify-format-one.js';
export type { PinnedKey, TrustInput } from './trust-checks.js';
export type { AcceptedTrust, VerifiedManifest } from './verified-manifest.js';
import type { VerifiedManifest } from './verified-manifest.js';

/** What verifying an answer depends on: its bytes aside, the state, the clock and the nonce. */
export interface AnswerInput extends TrustInput {
  readonly maxManifestBytes: number;
}

/** The parts of an AnswerInput that come from the persisted state. */
export function trustInputOf(
  state: UpdaterState,
): Pick<TrustInput, 'trust' | 'floor' | 'checkedDigest'> {
  return { trust: state.trust, floor: state.freshness, checkedDigest: state.installed?.setId };
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

/**
 * Readies the pinned keys for verification (their native form, cached per key) before the
 * answer they verify is in; nothing is trusted or decided here.
 */
export function prepareKeys(pinned: readonly PinnedKey[]): void {
  for (const key of pinned) prepareEd25519Key(key.publicKey);
}

/** Step 1 of §2.7.5: the size cap and the answer's structure (nothing verified yet). */
export function parseAnswer(bytes: Uint8Array, maxManifestBytes: number): ManifestAnswer {
  sizeCap(bytes, maxManifestBytes);
  try {
    return parseManifestAnswer(bytes);
  } catch (error) {
    throw fromProtocolError(error);
  }
}

/**
 * Verifies a manifest answer (docs/PROTOCOL.md §2.7.5). Format 2: the key chain, release and
 * freshness checks of trust-checks.ts; `chain` is the whole chain from GET /api/updates/keys
 * when the answer's own links could not reach the trusted key set (`needsKeyChain`). Format 1:
 * NONCE_MISMATCH when a nonce was sent, FORMAT_DOWNGRADE once a key set is trusted, else §2.5.
 * A pure function of its arguments, so a cached answer's bytes can be fed in again.
 */
export function verifyAnswer(
  bytes: Uint8Array,
  input: AnswerInput,
  chain?: readonly ParsedEnvelope[],
): VerifiedManifest {
  return verifyParsedAnswer(parseAnswer(bytes, input.maxManifestBytes), bytes, input, chain);
}

/** `verifyAnswer` after `parseAnswer` (the caller looked at the links in between). */
export function verifyParsedAnswer(
  answer: ManifestAnswer,
  bytes: Uint8Array,
  input: AnswerInput,
  chain?: readonly ParsedEnvelope[],
): VerifiedManifest {
  if (input.pinned.length === 0) throw new UpdateError('NO_PINNED_KEY', 'no pinned public key');
  sizeCap(bytes, input.maxManifestBytes);
  if (answer.format === 1) {
    if (input.nonce !== undefined) {
      throw new UpdateError('NONCE_MISMATCH', 'a format 1 answer carries no nonce');
    }
    if (input.trust !== null) {
      throw new UpdateError(
        'FORMAT_DOWNGRADE',
        `a format 1 answer after key set ${input.trust.keySet.version} was trusted`,
      );
    }
    return verifyFormatOne(answer.envelope, bytes, input.pinned, input.checkedDigest);
  }
  const parts: AnswerParts = {
    keys: chain === undefined ? answer.keys : mergeLinks(chain, answer.keys),
    release: answer.release,
    freshness: answer.freshness,
  };
  const checked = checkAnswer(parts, input);
  const { freshness, release } = checked;
  return {
    format: 2,
    manifest: {
      registry_version: release.registry_version,
      artifacts: release.artifacts,
      issued_at: freshness.issued_at,
      expires_at: freshness.expires_at,
      issuedAtMs: freshness.issuedAtMs,
      expiresAtMs: freshness.expiresAtMs,
      ...(release.notes === undefined ? {} : { notes: release.notes }),
    },
    setId: checked.releaseSha256,
    keyid: checked.releaseKeyid,
    envelope: encodeDsse(answer.release),
    trust: {
      trust: trustedKeysOf(checked.keySet, checked.retired),
      floor: { sequence: freshness.sequence, releaseSha256: checked.releaseSha256 },
    },
  } as VerifiedManifest;
}

/** An envelope as DSSE JSON bytes (payload and signatures in canonical base64). */
function encodeDsse(envelope: ParsedEnvelope): Uint8Array {
  const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
  return new TextEncoder().encode(
    JSON.stringify({
      payloadType: envelope.payloadType,
      payload: b64(envelope.payload),
      signatures: envelope.signatures.map((s) => ({ keyid: s.keyid, sig: b64(s.sig) })),
    }),
  );
}

/** What `verify` compares the installed files with: a re-verified signed artifact list. */
export interface InstalledRecord {
  readonly version: string;
  readonly artifacts: readonly ManifestArtifact[];
  /** The payload SHA-256 (format 1) or release digest (format 2): the set id. */
  readonly digest: string;
}

/**
 * Re-verifies the signed bytes an installed set came from: a format 1 envelope under the
 * pinned keys, or a format 2 release under the release role of the trusted key set (no
 * freshness: the statement that vouched for it has long expired, and a release does not).
 */
export function verifyStoredManifest(
  bytes: Uint8Array,
  state: UpdaterState,
  pinned: readonly PinnedKey[],
): InstalledRecord {
  let envelope;
  try {
    envelope = parseEnvelope(bytes);
  } catch (error) {
    throw fromProtocolError(error);
  }
  if (envelope.payloadType !== RELEASE_PAYLOAD_TYPE) {
    const verified = verifyFormatOne(envelope, bytes, pinned);
    const m = verified.manifest;
    return { version: m.registry_version, artifacts: m.artifacts, digest: verified.setId };
  }
  if (state.trust === null) {
    throw new UpdateError('STATE_CORRUPT', 'a release is installed but no key set is trusted');
  }
  const keySet = trustedKeySet(state.trust);
  try {
    verifyRole(envelope, keySet.release, RELEASE_PAYLOAD_TYPE, 'installed release', {
      otherRoles: keyOwners(keySet),
      retired: new Set(state.trust.retired),
    });
    const release = parseRelease(envelope.payload);
    return {
      version: release.registry_version,
      artifacts: release.artifacts,
      digest: releaseDigest(envelope.payload),
    };
  } catch (error) {
    throw fromTrustError(error);
  }
}
