/**
 * Packs for small artifacts (docs/PROTOCOL.md §2.8): at publish, every artifact of 1 byte to
 * `PACK_MEMBER_MAX_BYTES` is also stored as a member of a pack, a blob that is the plain
 * concatenation of its members, so a client brings many of them in with a few range requests.
 * Members already in a pack of the release before keep that pack; only the new ones go into
 * new packs, in name order, so the files one release changes sit together and an update
 * fetches them in one range. When the packs kept would be mostly dead bytes, everything is
 * packed afresh.
 */
import type { ManifestArtifact, PackRef } from '#protocol';
import type { BlobInfo } from '../../store/blob-store.js';

/** Artifacts up to this size become pack members (bench/network-peers.ts, BENCH-NETWORK.md). */
export const PACK_MEMBER_MAX_BYTES = 64 * 1024;
/** A new pack is closed once it holds this many bytes: a few requests' worth of a link. */
export const PACK_TARGET_BYTES = 4 * 1024 * 1024;
/** Kept packs must be at least this share live bytes, or the release is packed afresh. */
export const MIN_LIVE_SHARE = 0.5;

export interface PackRules {
  readonly memberMaxBytes: number;
  readonly targetBytes: number;
  readonly minLiveShare: number;
}

export const DEFAULT_PACK_RULES: PackRules = {
  memberMaxBytes: PACK_MEMBER_MAX_BYTES,
  targetBytes: PACK_TARGET_BYTES,
  minLiveShare: MIN_LIVE_SHARE,
};

interface Member {
  readonly sha256: string;
  readonly size: number;
}

/** Which members keep the pack they had, and the members of each new pack, in order. */
export interface PackPlan {
  readonly kept: ReadonlyMap<string, PackRef>;
  readonly fresh: readonly (readonly Member[])[];
}

const packable = (a: ManifestArtifact, rules: PackRules): boolean =>
  a.size >= 1 && a.size <= rules.memberMaxBytes && a.chunk_index === undefined;

/** The pure plan: `artifacts` sorted by name, `previous` the release before (if any). */
export function planPacks(
  artifacts: readonly ManifestArtifact[],
  previous: readonly ManifestArtifact[] | undefined,
  rules: PackRules = DEFAULT_PACK_RULES,
): PackPlan {
  const before = new Map<string, PackRef>();
  for (const a of previous ?? []) if (a.pack !== undefined) before.set(a.sha256, a.pack);
  const members: Member[] = [];
  const seen = new Set<string>();
  for (const a of artifacts) {
    if (!packable(a, rules) || seen.has(a.sha256)) continue;
    seen.add(a.sha256);
    members.push({ sha256: a.sha256, size: a.size });
  }
  const kept = new Map<string, PackRef>();
  const live = new Map<string, number>();
  const packSize = new Map<string, number>();
  for (const m of members) {
    const ref = before.get(m.sha256);
    if (ref === undefined) continue;
    kept.set(m.sha256, ref);
    live.set(ref.sha256, (live.get(ref.sha256) ?? 0) + m.size);
    packSize.set(ref.sha256, ref.size);
  }
  const liveBytes = [...live.values()].reduce((s, n) => s + n, 0);
  const packBytes = [...packSize.values()].reduce((s, n) => s + n, 0);
  if (packBytes > 0 && liveBytes < packBytes * rules.minLiveShare) kept.clear();
  return {
    kept,
    fresh: group(
      members.filter((m) => !kept.has(m.sha256)),
      rules.targetBytes,
    ),
  };
}

/** Consecutive members in packs of about `targetBytes`; a lone member gets no pack. */
function group(members: readonly Member[], targetBytes: number): Member[][] {
  const packs: Member[][] = [];
  let current: Member[] = [];
  let bytes = 0;
  for (const m of members) {
    if (current.length > 0 && bytes + m.size > targetBytes) {
      packs.push(current);
      current = [];
      bytes = 0;
    }
    current.push(m);
    bytes += m.size;
  }
  if (current.length > 0) packs.push(current);
  return packs.filter((p) => p.length > 1);
}

export interface PackPorts {
  /** The bytes of a stored blob (members are small). */
  readonly read: (sha256: string) => Promise<Uint8Array>;
  /** Stores a new pack. */
  readonly put: (bytes: Uint8Array) => Promise<BlobInfo>;
  /** The URL a blob is served at (the artifact route, or the artifact base URL). */
  readonly urlOf: (sha256: string) => string;
}

/** `artifacts` with their `pack`: new packs stored, kept ones named again. */
export async function addPacks(
  artifacts: readonly ManifestArtifact[],
  previous: readonly ManifestArtifact[] | undefined,
  ports: PackPorts,
  rules: PackRules = DEFAULT_PACK_RULES,
): Promise<ManifestArtifact[]> {
  const plan = planPacks(artifacts, previous, rules);
  const refs = new Map<string, PackRef>();
  for (const [sha256, ref] of plan.kept) refs.set(sha256, { ...ref, url: ports.urlOf(ref.sha256) });
  for (const members of plan.fresh) {
    const parts: Uint8Array[] = [];
    for (const m of members) parts.push(await ports.read(m.sha256));
    const bytes = Buffer.concat(parts);
    const blob = await ports.put(bytes);
    let offset = 0;
    for (const m of members) {
      refs.set(m.sha256, {
        sha256: blob.sha256,
        size: blob.size,
        url: ports.urlOf(blob.sha256),
        offset,
      });
      offset += m.size;
    }
  }
  return artifacts.map((a) => {
    const pack = refs.get(a.sha256);
    return pack === undefined || !packable(a, rules) ? a : { ...a, pack };
  });
}
