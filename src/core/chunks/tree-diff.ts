/**
 * Plans a chunked download (docs/UPDATER.md §9): walks the new artifact's chunk tree from its
 * signed root, level by level, reusing every subtree and chunk the client already holds and
 * fetching (through `fetchSections`, verified against their parent nodes) only the chunk list
 * sections on the paths to what it lacks. The result says, for each chunk of the artifact in
 * order, where its bytes come from. Pure: the I/O is the injected section fetcher.
 */
import {
  entryHash,
  entrySpan,
  placeEntries,
  type ChunkIndex,
  type NodeEntry,
  type PlacedEntry,
  type Section,
} from '#protocol/chunk-index.js';
import type { LocalChunks, LocalRun } from './local-chunks.js';

/** A section of the chunk list to fetch: bytes `offset`..`offset+length-1` of the list. */
export interface SectionRequest {
  readonly offset: number;
  readonly length: number;
  readonly node: NodeEntry;
  readonly level: number;
  readonly endsArtifact: boolean;
  readonly artifactOffset: number;
}

/** Fetches and verifies sections; answers in the order asked. */
export type FetchSections = (requests: readonly SectionRequest[]) => Promise<readonly Section[]>;

export type ChunkOp =
  /** Copy a run of held chunks to `offset` (checked by the whole SHA-256, §9.1). */
  | {
      readonly kind: 'local';
      readonly offset: number;
      readonly length: number;
      readonly from: LocalRun;
    }
  /** Fetch one chunk from the network. */
  | {
      readonly kind: 'fetch';
      readonly offset: number;
      readonly length: number;
      readonly sha256: Uint8Array;
    }
  /** The same chunk is fetched for `sourceOffset` of this artifact: copy it from there. */
  | {
      readonly kind: 'repeat';
      readonly offset: number;
      readonly length: number;
      readonly sha256: Uint8Array;
      readonly sourceOffset: number;
    };

export interface DeltaPlan {
  /** The artifact, tiled in order: held runs and single fetched or repeated chunks. */
  readonly ops: readonly ChunkOp[];
  /** Artifact bytes to fetch (each distinct missing chunk once). */
  readonly fetchBytes: number;
  /** Artifact bytes reused: held locally, or repeats of a fetched chunk. */
  readonly reuseBytes: number;
  /** Chunk list bytes fetched while planning. */
  readonly sectionBytes: number;
  readonly sectionRequests: number;
}

export async function planChunkDelta(
  index: ChunkIndex,
  local: LocalChunks,
  fetchSections: FetchSections,
): Promise<DeltaPlan> {
  const ops: ChunkOp[] = [];
  const fetched = new Map<string, number>();
  let sectionBytes = 0;
  let sectionRequests = 0;

  let frontier: PlacedEntry[] = placeEntries(index.root, 0, 0, index.artifactSize);
  while (frontier.length > 0) {
    const needed: SectionRequest[] = [];
    for (const placed of frontier) {
      if (!('listOffset' in placed)) {
        addChunk(ops, fetched, local, placed.section, placed.index, placed.artifactOffset);
        continue;
      }
      const held = local.subtree(placed.level, placed.entry.sha256);
      if (held !== undefined && held.length === placed.entry.span) {
        ops.push({ kind: 'local', offset: placed.artifactOffset, length: held.length, from: held });
        continue;
      }
      needed.push({
        offset: placed.listOffset,
        length: placed.entry.sectionBytes,
        node: placed.entry,
        level: placed.level,
        endsArtifact: placed.endsArtifact,
        artifactOffset: placed.artifactOffset,
      });
    }
    if (needed.length === 0) break;
    const sections = await fetchSections(needed);
    sectionRequests += needed.length;
    frontier = [];
    needed.forEach((request, i) => {
      sectionBytes += request.length;
      const section = sections[i] as Section;
      const subtreesAt = request.offset + request.length;
      frontier.push(
        ...placeEntries(section, subtreesAt, request.artifactOffset, index.artifactSize),
      );
    });
  }

  ops.sort((a, b) => a.offset - b.offset);
  return { ops, ...tally(ops), sectionBytes, sectionRequests };
}

/**
 * The op for one chunk of the new artifact: held locally, a repeat of a chunk this plan
 * already fetches (`fetched`: hex SHA-256 to its first offset), or a fetch.
 */
function addChunk(
  ops: ChunkOp[],
  fetched: Map<string, number>,
  local: LocalChunks,
  section: Section,
  i: number,
  offset: number,
): void {
  const sha256 = entryHash(section, i);
  const length = entrySpan(section, i);
  const held = local.chunk(sha256);
  if (held !== undefined && held.length === length) {
    ops.push({ kind: 'local', offset, length, from: held });
    return;
  }
  const hex = Buffer.from(sha256).toString('hex');
  const first = fetched.get(hex);
  if (first !== undefined) {
    ops.push({ kind: 'repeat', offset, length, sha256, sourceOffset: first });
    return;
  }
  fetched.set(hex, offset);
  ops.push({ kind: 'fetch', offset, length, sha256 });
}

/** Artifact bytes to fetch and to reuse under `ops`. */
function tally(ops: readonly ChunkOp[]): { fetchBytes: number; reuseBytes: number } {
  let fetchBytes = 0;
  let reuseBytes = 0;
  for (const op of ops) {
    if (op.kind === 'fetch') fetchBytes += op.length;
    else reuseBytes += op.length;
  }
  return { fetchBytes, reuseBytes };
}
