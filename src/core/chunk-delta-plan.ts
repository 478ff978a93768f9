/**
 * Plans a chunked download (docs/UPDATER.md §9): walks the new artifact's chunk tree from its
 * signed root, level by level, reusing every subtree and chunk the client already holds and
 * fetching (through `fetchSections`, verified against their parent nodes) only the chunk list
 * sections on the paths to what it lacks. The result says, for each chunk of the artifact in
 * order, where its bytes come from. Pure: the I/O is the injected section fetcher.
 */
import {
  placeEntries,
  sectionLength,
  type ChunkEntry,
  type ChunkIndex,
  type NodeEntry,
  type PlacedEntry,
  type Section,
} from '../protocol/chunk-index.js';
import type { LocalChunk, LocalChunks } from './local-chunks.js';

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

interface OpBase {
  /** Where the chunk goes in the new artifact. */
  readonly offset: number;
  readonly length: number;
  readonly sha256: Uint8Array;
}

export type ChunkOp =
  /** Copy from a held blob (re-hashed on read). */
  | (OpBase & { readonly kind: 'local'; readonly from: LocalChunk })
  /** Fetch from the network. */
  | (OpBase & { readonly kind: 'fetch' })
  /** The same chunk is fetched for `sourceOffset` of this artifact: copy it from there. */
  | (OpBase & { readonly kind: 'repeat'; readonly sourceOffset: number });

export interface DeltaPlan {
  /** Every chunk of the artifact, in artifact order. */
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

  const addChunk = (entry: ChunkEntry, offset: number): void => {
    const base = { offset, length: entry.length, sha256: entry.sha256 };
    const held = local.chunk(entry.sha256);
    if (held !== undefined && held.length === entry.length) {
      ops.push({ ...base, kind: 'local', from: held });
      return;
    }
    const hex = Buffer.from(entry.sha256).toString('hex');
    const first = fetched.get(hex);
    if (first !== undefined) {
      ops.push({ ...base, kind: 'repeat', sourceOffset: first });
      return;
    }
    fetched.set(hex, offset);
    ops.push({ ...base, kind: 'fetch' });
  };

  /** A held subtree becomes local chunk ops; false when it is not held (or does not fit). */
  const addHeldSubtree = (level: number, node: NodeEntry, offset: number): boolean => {
    const chunks = local.subtree(level, node.sha256);
    if (chunks === undefined) return false;
    let span = 0;
    for (const c of chunks) span += c.length;
    if (span !== node.span) return false;
    let at = offset;
    for (const c of chunks) {
      ops.push({ offset: at, length: c.length, sha256: c.sha256, kind: 'local', from: c });
      at += c.length;
    }
    return true;
  };

  let frontier: PlacedEntry[] = placeEntries(index.root, 0, 0, index.artifactSize);
  while (frontier.length > 0) {
    const needed: SectionRequest[] = [];
    for (const placed of frontier) {
      if (!('listOffset' in placed)) {
        addChunk(placed.entry, placed.artifactOffset);
        continue;
      }
      if (addHeldSubtree(placed.level, placed.entry, placed.artifactOffset)) continue;
      needed.push({
        offset: placed.listOffset,
        length: sectionLength(placed.level, placed.entry),
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
  let fetchBytes = 0;
  let reuseBytes = 0;
  for (const op of ops) {
    if (op.kind === 'fetch') fetchBytes += op.length;
    else reuseBytes += op.length;
  }
  return { ops, fetchBytes, reuseBytes, sectionBytes, sectionRequests };
}
