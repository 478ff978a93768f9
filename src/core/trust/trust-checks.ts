/**
 * Steps 2 to 5 of a format 2 answer (docs/PROTOCOL.md §2.7.5): the key chain from the trusted
 * key set (or the pinned keys), the release under the release role, the freshness statement
 * under the freshness role, then the statement against the release, the key set, the
 * persisted freshness floor, the nonce and the clock. Pure: (answer, trust, floor, clock,
 * nonce) in, a checked answer or an UpdateError out. verify.ts brands the result.
 */
import type { ParsedEnvelope } from '#protocol/envelope.js';
import {
  FRESHNESS_PAYLOAD_TYPE,
  parseFreshness,
  type ParsedFreshness,
} from '#protocol/freshness.js';
import { walkKeyChain, type ChainStart } from '#protocol/key-chain.js';
import { keyOwners, parseKeySet, pinnedRole, type KeySet } from '#protocol/key-set.js';
import {
  parseRelease,
  RELEASE_PAYLOAD_TYPE,
  releaseDigest,
  type Release,
} from '#protocol/release.js';
import { verifyRole, type KeyContext } from '#protocol/role-signatures.js';
import { localClock, UpdateError } from '../errors.js';
import { trustedKeySet, type FreshnessFloor, type TrustedKeys } from '../state.js';
import { fromTrustError } from '../wire-errors.js';

/** A pinned node public key with its keyid precomputed. */
export interface PinnedKey {
  readonly keyid: string;
  readonly publicKey: Uint8Array;
}

/** The three signed parts of a format 2 answer, parsed but not verified. */
export interface AnswerParts {
  readonly keys: readonly ParsedEnvelope[];
  readonly release: ParsedEnvelope;
  readonly freshness: ParsedEnvelope;
}

/** What the checks of one answer depend on: nothing else is read. */
export interface TrustInput {
  readonly pinned: readonly PinnedKey[];
  /** The newest trusted key set (state); null before the first format 2 answer. */
  readonly trust: TrustedKeys | null;
  /** The highest accepted freshness sequence and its release digest (state). */
  readonly floor: FreshnessFloor | null;
  readonly nowMs: number;
  /** How far `issued_at` may lie ahead of `nowMs` (limits.maxFutureSkewMs). */
  readonly maxFutureSkewMs: number;
  /**
   * The nonce this request sent (requireNonce): the statement must carry exactly it. Undefined:
   * no nonce was sent and one in the statement is ignored.
   */
  readonly nonce: string | undefined;
  /**
   * The payload SHA-256 of the installed set (its setId): signed payload bytes with exactly this
   * digest passed every artifact list rule when that set was accepted, so their list is not
   * walked again (`ListOptions.listChecked`, docs/UPDATER.md §3, No-op runs). Signatures,
   * payload types, versions, freshness and policy are checked as for any answer.
   */
  readonly checkedDigest?: string | undefined;
}

/** A format 2 answer that passed steps 2 to 5. */
export interface CheckedAnswer {
  /** The newest trusted key set after the walk, and the keyids retired on the way. */
  readonly keySet: KeySet;
  readonly retired: readonly string[];
  readonly release: Release;
  readonly releaseSha256: string;
  /** The first release key whose signature counted (for the audit log). */
  readonly releaseKeyid: string;
  readonly freshness: ParsedFreshness;
}

function chainStart(input: TrustInput): ChainStart {
  if (input.trust !== null) {
    return { keySet: trustedKeySet(input.trust), retired: input.trust.retired };
  }
  try {
    return { pinned: pinnedRole(input.pinned.map((k) => k.publicKey)) };
  } catch (cause) {
    throw new UpdateError('CONFIG_INVALID', 'the pinned keys cannot root a key chain', { cause });
  }
}

/** The version a link claims, read from its unverified payload (only to pick links). */
function claimedVersion(link: ParsedEnvelope): number {
  try {
    return parseKeySet(link.payload).version;
  } catch (error) {
    throw fromTrustError(error);
  }
}

/**
 * True when the answer's links cannot reach the trusted key set, so the whole chain must come
 * from GET /api/updates/keys (§2.7.4): the first link is past the trusted version + 1, or, with
 * no key set trusted yet, no link is signed by a pinned key and the links start after key set 1.
 */
export function needsKeyChain(links: readonly ParsedEnvelope[], input: TrustInput): boolean {
  const first = links[0];
  if (first === undefined) return true;
  const firstVersion = claimedVersion(first);
  if (input.trust !== null) return firstVersion > input.trust.keySet.version + 1;
  const pinned = new Set(input.pinned.map((k) => k.keyid));
  const named = links.some((link) => link.signatures.some((s) => pinned.has(s.keyid)));
  return !named && firstVersion > 1;
}

/**
 * The whole chain (GET /api/updates/keys, oldest first) followed by the answer's own links:
 * the answer's links win from its first version on (they are what the statement was signed
 * beside). Contiguity is checked by the walk, not here.
 */
export function mergeLinks(
  chain: readonly ParsedEnvelope[],
  links: readonly ParsedEnvelope[],
): readonly ParsedEnvelope[] {
  const first = links[0];
  if (first === undefined) return chain;
  const from = claimedVersion(first);
  return [...chain.filter((link) => claimedVersion(link) < from), ...links];
}

/** Steps 2 to 5 of §2.7.5, in that order; the first refusal is thrown. */
export function checkAnswer(parts: AnswerParts, input: TrustInput): CheckedAnswer {
  // 2. The key chain.
  let walk;
  try {
    walk = walkKeyChain(chainStart(input), parts.keys);
  } catch (error) {
    throw fromTrustError(error);
  }
  const keySet = walk.keySet;
  if (keySet === undefined) throw new UpdateError('KEY_CHAIN_GAP', 'no key set is trusted');
  const context: KeyContext = { otherRoles: keyOwners(keySet), retired: new Set(walk.retired) };
  // Hashing trusts nothing: taken first so a release already installed is not re-walked.
  const releaseSha256 = releaseDigest(parts.release.payload);
  // 3. The release under the release role, then its payload.
  const { release, releaseKeyid } = verifyRelease(
    parts.release,
    keySet,
    context,
    releaseSha256 === input.checkedDigest,
  );
  // 4. The freshness statement under the freshness role, then its payload.
  let freshness: ParsedFreshness;
  try {
    verifyRole(parts.freshness, keySet.freshness, FRESHNESS_PAYLOAD_TYPE, 'freshness', context);
    freshness = parseFreshness(parts.freshness.payload);
  } catch (error) {
    throw fromTrustError(error);
  }
  // 5. The statement against the rest. A rotation of the freshness keys starts the floor over
  // (TUF §5.3.11).
  const floor = walk.freshnessKeysChanged ? null : input.floor;
  checkStatement(freshness, releaseSha256, keySet, floor, input);
  return { keySet, retired: walk.retired, release, releaseSha256, releaseKeyid, freshness };
}

/** Step 3: the release under the release role, then its payload; `listChecked` as in TrustInput. */
function verifyRelease(
  envelope: ParsedEnvelope,
  keySet: KeySet,
  context: KeyContext,
  listChecked: boolean,
): { readonly release: Release; readonly releaseKeyid: string } {
  try {
    const ids = verifyRole(envelope, keySet.release, RELEASE_PAYLOAD_TYPE, 'release', context);
    const releaseKeyid = ids[0] as string;
    return { release: parseRelease(envelope.payload, { listChecked }), releaseKeyid };
  } catch (error) {
    throw fromTrustError(error);
  }
}

/** Step 5: the verified statement against the release, the key set, the floor, nonce and clock. */
function checkStatement(
  freshness: ParsedFreshness,
  releaseSha256: string,
  keySet: KeySet,
  floor: FreshnessFloor | null,
  input: TrustInput,
): void {
  if (freshness.release_sha256 !== releaseSha256) {
    throw new UpdateError('FRESHNESS_MISMATCH', 'the freshness statement names another release');
  }
  if (freshness.keys_version !== keySet.version) {
    throw new UpdateError(
      'FRESHNESS_MISMATCH',
      `the freshness statement names key set ${freshness.keys_version}, the newest is ${keySet.version}`,
    );
  }
  if (floor !== null && freshness.sequence < floor.sequence) {
    throw new UpdateError(
      'FRESHNESS_ROLLBACK',
      `freshness sequence ${freshness.sequence} is below ${floor.sequence}, already accepted`,
    );
  }
  if (
    floor !== null &&
    freshness.sequence === floor.sequence &&
    releaseSha256 !== floor.releaseSha256
  ) {
    throw new UpdateError(
      'EQUIVOCATION',
      `freshness sequence ${freshness.sequence} was already accepted for another release`,
    );
  }
  if (input.nonce !== undefined && freshness.nonce !== input.nonce) {
    throw new UpdateError(
      'NONCE_MISMATCH',
      freshness.nonce === undefined
        ? 'the freshness statement carries no nonce'
        : 'the freshness statement carries another nonce',
    );
  }
  if (freshness.expiresAtMs <= input.nowMs) {
    throw new UpdateError(
      'MANIFEST_EXPIRED',
      `freshness expired at ${freshness.expires_at}; ${localClock(input.nowMs)}`,
    );
  }
  if (freshness.issuedAtMs > input.nowMs + input.maxFutureSkewMs) {
    throw new UpdateError(
      'MANIFEST_FROM_FUTURE',
      `freshness issued_at ${freshness.issued_at} is ahead; ${localClock(input.nowMs)}`,
    );
  }
}
