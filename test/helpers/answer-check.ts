/**
 * Verifies a format 2 manifest answer with src/protocol alone, as a client that pins
 * `nodePubkeyHex` would (docs/PROTOCOL.md §2.7.5 steps 1 to 5, without the persisted floor):
 * for server tests, which must not depend on the updater core.
 */
import {
  FRESHNESS_PAYLOAD_TYPE,
  keyOwners,
  parseFreshness,
  parseManifestAnswer,
  parsePubkeyHex,
  parseRelease,
  pinnedRole,
  RELEASE_PAYLOAD_TYPE,
  releaseDigest,
  verifyRole,
  walkKeyChain,
  type KeySet,
  type ParsedFreshness,
  type Release,
} from '#protocol';

export interface CheckedAnswer {
  readonly keySet: KeySet;
  readonly retired: readonly string[];
  readonly release: Release;
  /** keyids of the release keys whose signatures counted. */
  readonly releaseKeyids: readonly string[];
  readonly freshness: ParsedFreshness;
}

/** Throws (TrustError, ProtocolError, Error) on anything a client would refuse. */
export function checkAnswer(
  bytes: Uint8Array,
  nodePubkeyHex: string,
  nowMs: number,
): CheckedAnswer {
  const answer = parseManifestAnswer(bytes);
  if (answer.format !== 2) throw new Error('not a format 2 answer');
  const walk = walkKeyChain({ pinned: pinnedRole([parsePubkeyHex(nodePubkeyHex)]) }, answer.keys);
  const keySet = walk.keySet as KeySet;
  const context = { otherRoles: keyOwners(keySet), retired: new Set(walk.retired) };
  const releaseKeyids = verifyRole(
    answer.release,
    keySet.release,
    RELEASE_PAYLOAD_TYPE,
    'release',
    context,
  );
  verifyRole(answer.freshness, keySet.freshness, FRESHNESS_PAYLOAD_TYPE, 'freshness', context);
  const freshness = parseFreshness(answer.freshness.payload);
  if (freshness.release_sha256 !== releaseDigest(answer.release.payload)) {
    throw new Error('freshness names another release');
  }
  if (freshness.keys_version !== keySet.version) throw new Error('freshness names another key set');
  if (freshness.expiresAtMs <= nowMs) throw new Error('freshness expired');
  return {
    keySet,
    retired: walk.retired,
    release: parseRelease(answer.release.payload),
    releaseKeyids,
    freshness,
  };
}
