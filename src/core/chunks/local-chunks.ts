/**
 * The client's chunk index over the blobs it already holds (docs/UPDATER.md §9): every chunk
 * and every subtree of every held blob's chunk tree, so a chunk of a new artifact is reused
 * wherever it appears locally, in any artifact of any kept version. Built from trees the node
 * adapter computes over the blobs (or loads from its cache), with the parameters of the index
 * being applied, since only equal parameters cut equal chunks.
 *
 * Memory: the trees stay as decoded fixed-width bytes (36 per chunk, 52 per node: any index
 * format decodes to them, src/protocol/chunk-index-wire.ts) plus a chunk offset table,
 * and the lookup keys on the first 48 bits of each digest (a number, not a string): about
 * 110 bytes per held chunk, 7 MB per GiB held at the default chunk size. A hit is confirmed
 * against the full SHA-256, so a key collision only costs a miss.
 */
import type { ChunkTree } from '#protocol/chunk-index-builder.js';
import { entryHash, entrySpan, sliceSection, type Section } from '#protocol/chunk-index.js';

/** Consecutive chunks of a held blob. */
export interface LocalRun {
  readonly blob: string;
  /** Offset of the first chunk in the blob. */
  readonly offset: number;
  /** Bytes of the run (the chunks' lengths added). */
  readonly length: number;
  /** The chunks, as level 0 entries (length and SHA-256 each), to verify on copy. */
  readonly chunks: Section;
}

export interface LocalChunks {
  /** A held chunk with this SHA-256 (re-hashed when copied). */
  chunk(sha256: Uint8Array): LocalRun | undefined;
  /** The chunks of a held subtree of `level` whose section hashes to `sha256`. */
  subtree(level: number, sha256: Uint8Array): LocalRun | undefined;
  /** Chunks known (for reports and tests). */
  readonly size: number;
}

export const NO_LOCAL_CHUNKS: LocalChunks = {
  chunk: () => undefined,
  subtree: () => undefined,
  size: 0,
};

/** The first 48 bits of a digest, as a safe integer key. */
function key48(sha256: Uint8Array): number {
  return (
    (sha256[0] as number) * 2 ** 40 +
    (sha256[1] as number) * 2 ** 32 +
    (sha256[2] as number) * 2 ** 24 +
    (((sha256[3] as number) << 16) | ((sha256[4] as number) << 8) | (sha256[5] as number))
  );
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

interface HeldTree {
  readonly blob: string;
  readonly chunks: Section;
  /** offsets[i]: offset of chunk i in the blob (offsets[count]: the blob's size). */
  readonly offsets: Float64Array;
}

/** Tree number and entry number packed in one number (both below 2^26 and 2^27). */
const pack = (tree: number, entry: number): number => tree * 2 ** 27 + entry;

export function buildLocalChunks(
  trees: readonly { readonly blob: string; readonly tree: ChunkTree }[],
): LocalChunks {
  const { held, chunkMap, nodeMaps, nodeRanges } = indexHeld(trees);
  const runOf = (t: number, firstChunk: number, count: number): LocalRun => {
    const tree = held[t] as HeldTree;
    const offset = tree.offsets[firstChunk] as number;
    return {
      blob: tree.blob,
      offset,
      length: (tree.offsets[firstChunk + count] as number) - offset,
      chunks: sliceSection(tree.chunks, firstChunk, count),
    };
  };
  return {
    size: chunkMap.size,
    chunk(sha256) {
      const value = chunkMap.get(key48(sha256));
      if (value === undefined) return undefined;
      const t = Math.floor(value / 2 ** 27);
      const i = value % 2 ** 27;
      const tree = held[t] as HeldTree;
      return sameBytes(entryHash(tree.chunks, i), sha256) ? runOf(t, i, 1) : undefined;
    },
    subtree(level, sha256) {
      const value = nodeMaps.get(level)?.get(key48(sha256));
      if (value === undefined) return undefined;
      const t = Math.floor(value / 2 ** 27);
      const j = value % 2 ** 27;
      const ranges = nodeRanges[t]?.get(level);
      const nodes = trees[t]?.tree.levels[level];
      if (ranges === undefined || nodes === undefined) return undefined;
      if (!sameBytes(entryHash(nodes, j), sha256)) return undefined;
      const first = ranges[j] as number;
      return runOf(t, first, (ranges[j + 1] as number) - first);
    },
  };
}

/** The lookup tables over the held trees, each entry packed as (tree, first chunk). */
interface HeldIndex {
  readonly held: HeldTree[];
  readonly chunkMap: Map<number, number>;
  /** Per level: key -> packed (tree, node). */
  readonly nodeMaps: Map<number, Map<number, number>>;
  /** Per tree, per level: each node's first chunk, and the count after the last. */
  readonly nodeRanges: Map<number, Uint32Array>[];
}

function indexHeld(
  trees: readonly { readonly blob: string; readonly tree: ChunkTree }[],
): HeldIndex {
  const index: HeldIndex = { held: [], chunkMap: new Map(), nodeMaps: new Map(), nodeRanges: [] };
  trees.forEach(({ blob, tree }, t) => {
    const chunks = tree.levels[0] as Section;
    const offsets = indexChunks(chunks, t, index.chunkMap);
    index.held.push({ blob, chunks, offsets });
    index.nodeRanges.push(indexNodes(tree, t, offsets, index.nodeMaps));
  });
  return index;
}

/** Keys the chunks of tree `t` (the first holder of a digest wins); returns their offsets. */
function indexChunks(chunks: Section, t: number, chunkMap: Map<number, number>): Float64Array {
  const offsets = new Float64Array(chunks.count + 1);
  for (let i = 0; i < chunks.count; i++) {
    offsets[i + 1] = (offsets[i] as number) + entrySpan(chunks, i);
    const k = key48(entryHash(chunks, i));
    if (!chunkMap.has(k)) chunkMap.set(k, pack(t, i));
  }
  return offsets;
}

/** Keys the nodes of tree `t`; returns each node's first chunk and count, level by level. */
function indexNodes(
  tree: ChunkTree,
  t: number,
  offsets: Float64Array,
  nodeMaps: Map<number, Map<number, number>>,
): Map<number, Uint32Array> {
  const chunks = tree.levels[0] as Section;
  const ranges = new Map<number, Uint32Array>();
  for (let level = 1; level < tree.levels.length; level++) {
    const nodes = tree.levels[level] as Section;
    const next = new Uint32Array(nodes.count + 1);
    const map = nodeMaps.get(level) ?? new Map<number, number>();
    nodeMaps.set(level, map);
    // A node's chunks are those its span covers (the format need not name child counts).
    let chunk = 0;
    for (let j = 0; j < nodes.count; j++) {
      next[j] = chunk;
      const end = (offsets[chunk] as number) + entrySpan(nodes, j);
      while (chunk < chunks.count && (offsets[chunk] as number) < end) chunk++;
      const k = key48(entryHash(nodes, j));
      if (!map.has(k)) map.set(k, pack(t, j));
    }
    next[nodes.count] = chunk;
    ranges.set(level, next);
  }
  return ranges;
}
