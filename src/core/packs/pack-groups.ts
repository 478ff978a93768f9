/**
 * Which artifacts of a pull come from packs (docs/PROTOCOL.md §2.8, docs/UPDATER.md §11): the
 * artifacts to fetch that name a pack, grouped by pack, each member a piece of the pack that
 * is checked against the artifact's own signed SHA-256. Pure: no I/O.
 */
import type { ManifestArtifact } from '#protocol/manifest.js';
import type { CoalesceRule } from '../chunks/index.js';

/**
 * One member to fetch: its place in the pack and the artifact it is. Its digest as bytes (what
 * the range fetch compares) is made when asked, once per member as it is checked: held for
 * every member of a 10,000-artifact pull, the 32-byte buffers were megabytes of heap
 * (docs/UPDATER.md §11.1).
 */
export class MemberPiece {
  constructor(
    readonly offset: number,
    readonly length: number,
    readonly artifact: ManifestArtifact,
  ) {}

  /** The artifact's signed SHA-256, as bytes. */
  get sha256(): Uint8Array {
    return Buffer.from(this.artifact.sha256, 'hex');
  }
}

/** The members one pack contributes to a pull. */
export interface PackGroup {
  readonly sha256: string;
  readonly size: number;
  /** As signed: resolved against the base URL when fetched. */
  readonly url: string;
  readonly members: MemberPiece[];
}

/**
 * Gaps between wanted members are read and dropped when they are at most 64 KiB: at 100 Mbit/s
 * that is 5 ms of link, against a round trip of tens of milliseconds for another range or
 * request. A range stops at 8 MiB, so a fresh install spreads over the connections.
 */
export const PACK_COALESCE_RULE: CoalesceRule = {
  maxGapBytes: 64 * 1024,
  maxRangeBytes: 8 * 1024 * 1024,
};

export interface PackSplit {
  /** Packs with at least two members wanted, in the order of their first member. */
  readonly packs: readonly PackGroup[];
  /** Everything else: fetched whole, one GET each (a lone member gains nothing from its pack). */
  readonly single: readonly ManifestArtifact[];
}

/**
 * Splits `todo` (unique digests) into pack groups and single artifacts. Two artifacts that
 * claim overlapping bytes of one pack cannot both be right: the later is fetched whole.
 */
export function splitByPack(todo: readonly ManifestArtifact[]): PackSplit {
  const byPack = new Map<string, PackGroup>();
  const single: ManifestArtifact[] = [];
  for (const artifact of todo) {
    const { pack } = artifact;
    if (pack === undefined) {
      single.push(artifact);
      continue;
    }
    let group = byPack.get(pack.sha256);
    if (group === undefined || group.size !== pack.size || group.url !== pack.url) {
      if (group !== undefined) {
        single.push(artifact);
        continue;
      }
      group = { sha256: pack.sha256, size: pack.size, url: pack.url, members: [] };
      byPack.set(pack.sha256, group);
    }
    group.members.push(new MemberPiece(pack.offset, artifact.size, artifact));
  }
  const packs: PackGroup[] = [];
  for (const group of byPack.values()) {
    const members = dropOverlaps(group.members, single);
    if (members.length < 2) single.push(...members.map((m) => m.artifact));
    else packs.push({ ...group, members });
  }
  return { packs, single };
}

/** Members sorted by offset; one that overlaps the one before goes to `single`. */
function dropOverlaps(members: readonly MemberPiece[], single: ManifestArtifact[]): MemberPiece[] {
  const sorted = [...members].sort((a, b) => a.offset - b.offset);
  const kept: MemberPiece[] = [];
  let end = 0;
  for (const m of sorted) {
    if (kept.length > 0 && m.offset < end) {
      single.push(m.artifact);
      continue;
    }
    kept.push(m);
    end = m.offset + m.length;
  }
  return kept;
}
