import { describe, expect, it } from 'vitest';
import { bigFixture, build, counterBytes, parse, sha, walk } from '#test/chunk-index-kit.js';
import {
  buildChunkTree,
  ChunkIndexBuilder,
  type BuiltChunkIndex,
} from '#protocol/chunk-index-builder.js';
import { readWholeTree } from '#protocol/chunk-index-parse.js';
import {
  chunkEntries,
  CHUNK_INDEX_HEADER_BYTES,
  CHUNK_INDEX_HEADER_BYTES_2,
  DEFAULT_TREE_LAYOUT,
  entryHash,
  format1Layout,
  MAX_INDEX_BYTES,
  type ChunkEntry,
  type Section,
} from '#protocol/chunk-index.js';
import { MAX_CHUNK_INDEX_BYTES } from '#protocol/manifest.js';

const { big, bigBuilt, bigBuilt1 } = bigFixture();

describe('chunk index builder and parser (docs/PROTOCOL.md §2.6)', () => {
  it('publishes format 2 by default and still parses format 1 of the same artifact', () => {
    expect(bigBuilt.indexBytes[4]).toBe(2);
    expect(bigBuilt1.indexBytes[4]).toBe(1);
    const index1 = parse(bigBuilt1);
    expect(index1.format).toBe(1);
    expect(walk(index1, bigBuilt1.listBytes).map((c) => c.length)).toEqual(
      walk(parse(bigBuilt), bigBuilt.listBytes).map((c) => c.length),
    );
    expect(readWholeTree(index1, bigBuilt1.listBytes)[0]?.bytes).toEqual(bigBuilt.levels[0]?.bytes);
    // From a pooled Buffer (as read from a cache file): decoding copies, never aliases.
    const pooled = Buffer.concat([Buffer.from('x'), bigBuilt1.indexBytes]).subarray(1);
    expect(parse(bigBuilt1, pooled).root.count).toBe(index1.root.count);
    expect(pooled).toEqual(Buffer.from(bigBuilt1.indexBytes));
  });

  it('regroups a format 1 tree from its chunks into the format 2 tree, byte for byte', () => {
    // What a client holding a format 1 cache does before comparing nodes with a format 2 index.
    const level0 = readWholeTree(parse(bigBuilt1), bigBuilt1.listBytes)[0] as Section;
    const { artifactSize, artifactSha256, params } = bigBuilt.index;
    const regrouped = buildChunkTree(
      level0,
      artifactSize,
      artifactSha256,
      params,
      DEFAULT_TREE_LAYOUT,
    );
    expect(regrouped.indexBytes).toEqual(bigBuilt.indexBytes);
    expect(regrouped.listBytes).toEqual(bigBuilt.listBytes);
    // And back: equal chunk lists give equal nodes under either layout.
    const back = buildChunkTree(level0, artifactSize, artifactSha256, params, format1Layout(3));
    expect(back.indexBytes).toEqual(bigBuilt1.indexBytes);
  });

  it('makes format 2 denser than format 1 (varint entries)', () => {
    expect(bigBuilt.listBytes.length).toBeLessThan(bigBuilt1.listBytes.length * 0.97);
    const nodes = bigBuilt.index.root.count;
    expect(bigBuilt.indexBytes.length).toBeLessThan(CHUNK_INDEX_HEADER_BYTES_2 + nodes * 42);
  });

  it('round-trips: every chunk is reached through the list and hashes to its entry', () => {
    const index = parse(bigBuilt);
    expect(index.levels).toBeGreaterThanOrEqual(2);
    expect(index.listSha256).toBe(sha(bigBuilt.listBytes));
    const chunks = walk(index, bigBuilt.listBytes);
    const hexList = (list: readonly ChunkEntry[]): string[] =>
      list.map((c) => `${c.length}:${Buffer.from(c.sha256).toString('hex')}`);
    expect(hexList(chunks)).toEqual(hexList(chunkEntries(bigBuilt.levels[0] as Section)));
    let at = 0;
    for (const chunk of chunks) {
      expect(sha(big.subarray(at, at + chunk.length))).toBe(
        Buffer.from(chunk.sha256).toString('hex'),
      );
      at += chunk.length;
    }
    expect(at).toBe(big.length);
  });

  it('builds the same blobs whatever the read size (one pass over any split)', () => {
    const other = build(big, 4093);
    expect(sha(other.indexBytes)).toBe(bigBuilt.indexSha256);
    expect(sha(other.listBytes)).toBe(sha(bigBuilt.listBytes));
    expect(bigBuilt.index.artifactSha256).toBe(sha(big));
  });

  it('keeps a small artifact in one level, without a chunk list', () => {
    const small = build(counterBytes(100_000, 2));
    const index = parse(small);
    expect(index.levels).toBe(1);
    expect(index.listSize).toBe(0);
    expect(index.listSha256).toBeUndefined();
    expect(small.listBytes.length).toBe(0);
    expect(walk(index, small.listBytes).length).toBe(index.root.count);
  });

  it('names equal content with equal nodes wherever it sits (subtrees are reusable)', () => {
    const shifted = new Uint8Array(big.length + 70_000);
    shifted.set(counterBytes(70_000, 3), 0);
    shifted.set(big, 70_000);
    const keys = (built: BuiltChunkIndex): Set<string> =>
      new Set(
        built.levels.flatMap((level) =>
          Array.from(
            { length: level.count },
            (_x, i) => `${level.level}:${Buffer.from(entryHash(level, i)).toString('hex')}`,
          ),
        ),
      );
    const before = keys(bigBuilt);
    const nodes = bigBuilt.levels[1]?.count ?? 0;
    const sharedNodes = [...keys(build(shifted))].filter(
      (k) => k.startsWith('1:') && before.has(k),
    );
    expect(sharedNodes.length).toBeGreaterThanOrEqual(nodes - 3);
  });

  it('never needs an index over the bound the manifest enforces', () => {
    expect(MAX_INDEX_BYTES).toBe(MAX_CHUNK_INDEX_BYTES);
    expect(bigBuilt.indexBytes.length).toBeLessThanOrEqual(MAX_INDEX_BYTES);
    expect(bigBuilt.indexBytes.length).toBeGreaterThan(CHUNK_INDEX_HEADER_BYTES);
  });

  it('refuses an empty artifact', () => {
    expect(() => new ChunkIndexBuilder().finish()).toThrow(RangeError);
  });
});
