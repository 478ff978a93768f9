/**
 * Shared by the chunk index tests (test/unit/protocol/chunk-index*.test.ts): deterministic
 * artifacts, a builder at any layout, the parser with the right signed digests, a client-like
 * walk of the whole tree, and the error code a call throws.
 */
import { createHash } from 'node:crypto';
import { ChunkIndexBuilder, type BuiltChunkIndex } from '#protocol/chunk-index-builder.js';
import { ChunkIndexError } from '#protocol/chunk-index-error.js';
import { parseChunkIndex, parseSection } from '#protocol/chunk-index-parse.js';
import {
  chunkEntries,
  DEFAULT_TREE_LAYOUT,
  format1Layout,
  placeEntries,
  sliceSection,
  type ChunkEntry,
  type ChunkIndex,
  type Section,
  type TreeLayout,
} from '#protocol/chunk-index.js';

export function counterBytes(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  const word = new Uint8Array(8);
  const view = new DataView(word.buffer);
  for (let i = 0; i * 32 < size; i++) {
    view.setUint32(0, seed);
    view.setUint32(4, i);
    out.set(
      createHash('sha256')
        .update(word)
        .digest()
        .subarray(0, Math.min(32, size - i * 32)),
      i * 32,
    );
  }
  return out;
}

export function build(
  data: Uint8Array,
  step = 1 << 20,
  layout: TreeLayout = DEFAULT_TREE_LAYOUT,
): BuiltChunkIndex {
  const builder = new ChunkIndexBuilder(undefined, layout);
  for (let at = 0; at < data.length; at += step) builder.update(data.subarray(at, at + step));
  return builder.finish();
}

/**
 * The builder and parser tests' artifact: 3 MiB and a bit (a multiple of nothing), built in
 * format 2 and, as older registries serve it, in format 1.
 */
export function bigFixture(): {
  big: Uint8Array;
  bigBuilt: BuiltChunkIndex;
  bigBuilt1: BuiltChunkIndex;
} {
  const big = counterBytes(3 * 1024 * 1024 + 12345, 1);
  return { big, bigBuilt: build(big), bigBuilt1: build(big, 1 << 20, format1Layout(3)) };
}

export const sha = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
export const signedOf = (bytes: Uint8Array) => ({ sha256: sha(bytes), size: bytes.length });
export const artifactOf = (built: BuiltChunkIndex) => ({
  sha256: built.index.artifactSha256,
  size: built.index.artifactSize,
});
export const parse = (built: BuiltChunkIndex, bytes = built.indexBytes): ChunkIndex =>
  parseChunkIndex(bytes, signedOf(bytes), artifactOf(built));

export function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof ChunkIndexError
      ? error.code
      : `NOT_A_CHUNK_INDEX_ERROR ${String(error)}`;
  }
  return undefined;
}

/** Every chunk of the tree, read through the list exactly as a client would. */
export function walk(index: ChunkIndex, list: Uint8Array): ChunkEntry[] {
  const chunks: ChunkEntry[] = [];
  const visit = (section: Section, subtreesAt: number, artifactAt: number): void => {
    for (const placed of placeEntries(section, subtreesAt, artifactAt, index.artifactSize)) {
      if (!('listOffset' in placed)) {
        chunks.push(...chunkEntries(sliceSection(placed.section, placed.index, 1)));
        continue;
      }
      const own = placed.entry.sectionBytes;
      const bytes = list.subarray(placed.listOffset, placed.listOffset + own);
      const child = parseSection(bytes, placed.entry, placed.level, placed.endsArtifact, index);
      visit(child, placed.listOffset + own, placed.artifactOffset);
    }
  };
  visit(index.root, 0, 0);
  return chunks;
}
