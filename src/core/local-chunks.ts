/**
 * The client's chunk index over the blobs it already holds (docs/UPDATER.md §9): every chunk
 * and every subtree of every held blob's chunk tree, so a chunk of a new artifact is reused
 * wherever it appears locally, in any artifact of any kept version. Built from trees the node
 * adapter computes over the blobs (or loads from its cache), with the parameters of the index
 * being applied, since only equal parameters cut equal chunks.
 *
 * Memory: keys are the first 48 bits of each SHA-256 as a number, values index typed arrays,
 * about 40 bytes per chunk. A hit is confirmed against the full SHA-256, so a key collision
 * only costs a miss; every local chunk is also re-hashed when it is copied (a blob damaged on
 * disk is fetched from the network instead).
 */
import type { ChunkTree } from '../protocol/chunk-index-builder.js';
import type { ChunkEntry, NodeEntry } from '../protocol/chunk-index.js';

/** A chunk of a held blob. */
export interface LocalChunk {
  readonly blob: string;
  readonly offset: number;
  readonly length: number;
  readonly sha256: Uint8Array;
}

export interface LocalChunks {
  /** A held chunk with this SHA-256 (candidate: verify on read). */
  chunk(sha256: Uint8Array): LocalChunk | undefined;
  /** The chunks of a held subtree of `level` whose section hashes to `sha256`, in order. */
  subtree(level: number, sha256: Uint8Array): readonly LocalChunk[] | undefined;
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

interface NodeHit {
  readonly value: number;
  readonly count: number;
  readonly sha256: Uint8Array;
}

interface HeldTree {
  readonly blob: string;
  readonly chunks: readonly ChunkEntry[];
  /** offsets[i]: offset of chunk i in the blob. */
  readonly offsets: Float64Array;
}

export function buildLocalChunks(
  trees: readonly { readonly blob: string; readonly tree: ChunkTree }[],
): LocalChunks {
  const held: HeldTree[] = [];
  // Value: tree number * 2^32 + chunk number (level 0) or first chunk number (subtrees).
  const chunkMap = new Map<number, number>();
  const nodeMaps = new Map<number, Map<number, NodeHit>>();
  trees.forEach(({ blob, tree }, t) => {
    const chunks = (tree.levels[0]?.entries ?? []) as readonly ChunkEntry[];
    const offsets = new Float64Array(chunks.length);
    let at = 0;
    chunks.forEach((c, i) => {
      offsets[i] = at;
      at += c.length;
      const k = key48(c.sha256);
      if (!chunkMap.has(k)) chunkMap.set(k, t * 2 ** 32 + i);
    });
    held.push({ blob, chunks, offsets });
    // First chunk and chunk count of each node, level by level from the bottom.
    let firstChunk = chunks.map((_c, i) => i);
    let chunkCount = chunks.map(() => 1);
    for (let level = 1; level < tree.levels.length; level++) {
      const nodes = (tree.levels[level]?.entries ?? []) as readonly NodeEntry[];
      const nextFirst: number[] = [];
      const nextCount: number[] = [];
      let child = 0;
      const map = nodeMaps.get(level) ?? new Map<number, NodeHit>();
      nodeMaps.set(level, map);
      for (const node of nodes) {
        const first = firstChunk[child] as number;
        let count = 0;
        for (let k = 0; k < node.childCount; k++) count += chunkCount[child + k] as number;
        child += node.childCount;
        nextFirst.push(first);
        nextCount.push(count);
        const k = key48(node.sha256);
        if (!map.has(k)) map.set(k, { value: t * 2 ** 32 + first, count, sha256: node.sha256 });
      }
      firstChunk = nextFirst;
      chunkCount = nextCount;
    }
  });

  const chunkAt = (value: number): LocalChunk => {
    const t = Math.floor(value / 2 ** 32);
    const i = value % 2 ** 32;
    const tree = held[t] as HeldTree;
    const c = tree.chunks[i] as ChunkEntry;
    return {
      blob: tree.blob,
      offset: tree.offsets[i] as number,
      length: c.length,
      sha256: c.sha256,
    };
  };
  return {
    size: chunkMap.size,
    chunk(sha256) {
      const value = chunkMap.get(key48(sha256));
      if (value === undefined) return undefined;
      const hit = chunkAt(value);
      return sameBytes(hit.sha256, sha256) ? hit : undefined;
    },
    subtree(level, sha256) {
      const hit = nodeMaps.get(level)?.get(key48(sha256));
      if (hit === undefined || !sameBytes(hit.sha256, sha256)) return undefined;
      return Array.from({ length: hit.count }, (_x, k) => chunkAt(hit.value + k));
    },
  };
}
