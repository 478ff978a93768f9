/**
 * The rotation chain (docs/PROTOCOL.md §2.7.4, TUF's root chain): key set N+1 is trusted when
 * signed by the threshold of key set N's root keys and by the threshold of its own. The walk
 * starts at the trusted key set, or at the pinned node_pubkeys when none is trusted yet, and
 * ends at the newest key set given. Keys dropped on the way are retired.
 */
import type { ParsedEnvelope } from './envelope.js';
import {
  keyOwners,
  KEYSET_PAYLOAD_TYPE,
  MAX_ROLE_KEYS,
  parseKeySet,
  sameKeys,
  type KeySet,
  type Role,
} from './key-set.js';
import { verifyRole } from './role-signatures.js';
import { TrustError } from './trust-error.js';

/** A link carries the signatures of two root roles: the previous one and its own. */
export const MAX_LINK_SIGNATURES = 2 * MAX_ROLE_KEYS;
/** Retired keyids remembered (for naming KEY_RETIRED; refusal does not depend on it). */
export const MAX_RETIRED_KEYIDS = 256;

/** Where a walk starts: the trusted key set, or the pinned keys (key set 0) before any. */
export type ChainStart =
  { readonly keySet: KeySet; readonly retired: readonly string[] } | { readonly pinned: Role };

export interface ChainWalk {
  /** The newest trusted key set: the start's when nothing newer was given; none if never. */
  readonly keySet: KeySet | undefined;
  /** Key sets accepted by this walk, oldest first (empty when nothing moved). */
  readonly accepted: readonly KeySet[];
  /** Keyids no longer in the newest key set, newest retirements last, bounded. */
  readonly retired: readonly string[];
  /** True when the freshness keys changed: the freshness sequence floor starts over (§2.7.5). */
  readonly freshnessKeysChanged: boolean;
}

/**
 * Walks `links` (key set envelopes in ascending version order, a contiguous part of the chain)
 * from `start`. Versions are read from the unverified payloads only to pick the links to
 * check; every picked link is verified under the previous root before anything in it is used.
 */
export function walkKeyChain(start: ChainStart, links: readonly ParsedEnvelope[]): ChainWalk {
  const sets = contiguousKeySets(links);
  let { index, root, trusted, retired } = walkStart(start, sets, links);
  if (index === -1) return { keySet: trusted, accepted: [], retired, freshnessKeysChanged: false };
  const accepted: KeySet[] = [];
  let previous: readonly { keyid: string }[] = trusted === undefined ? root.keys : allKeys(trusted);
  for (; index < links.length; index++) {
    const next = sets[index] as KeySet;
    verifyLink(links[index] as ParsedEnvelope, next, root, trusted, retired);
    retired = retireDropped(retired, previous, next);
    accepted.push(next);
    trusted = next;
    root = next.root;
    previous = allKeys(next);
  }
  const startFreshness = 'keySet' in start ? start.keySet.freshness : undefined;
  return {
    keySet: trusted,
    accepted,
    retired: retired.slice(-MAX_RETIRED_KEYIDS),
    freshnessKeysChanged:
      startFreshness !== undefined &&
      trusted !== undefined &&
      !sameKeys(startFreshness, trusted.freshness),
  };
}

/** The links' key sets, read unverified only to check that their versions follow each other. */
function contiguousKeySets(links: readonly ParsedEnvelope[]): KeySet[] {
  const sets = links.map((link) => parseKeySet(link.payload));
  for (let i = 1; i < sets.length; i++) {
    const before = (sets[i - 1] as KeySet).version;
    if ((sets[i] as KeySet).version !== before + 1) {
      throw new TrustError(
        'KEY_CHAIN_GAP',
        `key set ${before} is followed by ${(sets[i] as KeySet).version}`,
      );
    }
  }
  return sets;
}

/** Where the walk's loop starts: the first link to verify (-1: nothing newer) and its root. */
interface WalkStart {
  readonly index: number;
  readonly root: Role;
  readonly trusted: KeySet | undefined;
  readonly retired: string[];
}

function walkStart(
  start: ChainStart,
  sets: readonly KeySet[],
  links: readonly ParsedEnvelope[],
): WalkStart {
  if (!('keySet' in start)) {
    const index = firstPinnedLink(links, start.pinned);
    return { index, root: start.pinned, trusted: undefined, retired: [] };
  }
  const trusted = start.keySet;
  const retired = [...start.retired];
  const next = trusted.version + 1;
  const index = sets.findIndex((s) => s.version >= next);
  if (index !== -1 && (sets[index] as KeySet).version !== next) {
    throw new TrustError(
      'KEY_CHAIN_GAP',
      `key set ${next} is missing after the trusted ${trusted.version}`,
    );
  }
  return { index, root: trusted.root, trusted, retired };
}

/** Verifies one link under the previous root and under its own (docs/PROTOCOL.md §2.7.4). */
function verifyLink(
  link: ParsedEnvelope,
  next: KeySet,
  root: Role,
  trusted: KeySet | undefined,
  retired: readonly string[],
): void {
  const what = `key set ${next.version}`;
  // Names only (the refusal code): a rotation signed by one side alone is THRESHOLD_NOT_MET
  // for the other side. Before any key set is trusted, a foreign chain stays UNKNOWN_KEY.
  const previousNames = new Map<string, string>(
    trusted === undefined ? [] : [...keyOwners(trusted)].map(([id, r]) => [id, `previous ${r}`]),
  );
  const newNames = new Map<string, string>(trusted === undefined ? [] : keyOwners(trusted));
  for (const k of next.root.keys) if (!newNames.has(k.keyid)) newNames.set(k.keyid, 'new root');
  const verified = new Set<string>();
  verifyRole(link, root, KEYSET_PAYLOAD_TYPE, `${what} (previous root)`, {
    otherRoles: trusted === undefined ? new Map() : newNames,
    retired: new Set(retired),
    verified,
  });
  verifyRole(link, next.root, KEYSET_PAYLOAD_TYPE, `${what} (its own root)`, {
    otherRoles: previousNames,
    verified,
  });
}

/** The retired keyids once `next` is trusted: the previous keys it dropped join, its own leave. */
function retireDropped(
  retired: readonly string[],
  previous: readonly { keyid: string }[],
  next: KeySet,
): string[] {
  const current = new Set(allKeys(next).map((k) => k.keyid));
  const kept = retired.filter((id) => !current.has(id));
  for (const k of previous)
    if (!current.has(k.keyid) && !kept.includes(k.keyid)) kept.push(k.keyid);
  return kept;
}

function allKeys(keySet: KeySet): readonly { keyid: string }[] {
  return [...keySet.root.keys, ...keySet.release.keys, ...keySet.freshness.keys];
}

/**
 * With no key set trusted yet, the walk starts at the first link a pinned key signed: usually
 * key set 1, or a later one when the installer pins a rotated root (§2.7.4). When no link
 * qualifies, the first link naming a pinned key (else the first link) gives the refusal.
 */
function firstPinnedLink(links: readonly ParsedEnvelope[], pinned: Role): number {
  if (links.length === 0) throw new TrustError('KEY_CHAIN_GAP', 'no key set was given');
  const pinnedIds = new Set(pinned.keys.map((k) => k.keyid));
  let blame = -1;
  for (let i = 0; i < links.length; i++) {
    const link = links[i] as ParsedEnvelope;
    if (!link.signatures.some((s) => pinnedIds.has(s.keyid))) continue;
    if (blame === -1) blame = i;
    try {
      verifyRole(link, pinned, KEYSET_PAYLOAD_TYPE, 'key set');
      return i;
    } catch {
      // Not this one: a later link may carry a valid signature by the pinned key.
    }
  }
  return blame === -1 ? 0 : blame;
}
