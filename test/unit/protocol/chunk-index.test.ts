import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ChunkIndexBuilder,
  type BuiltChunkIndex,
} from '../../../src/protocol/chunk-index-builder.js';
import { ChunkIndexError } from '../../../src/protocol/chunk-index-error.js';
import {
  parseChunkIndex,
  parseSection,
  readWholeTree,
} from '../../../src/protocol/chunk-index-parse.js';
import { encodeSectionWire } from '../../../src/protocol/chunk-index-wire.js';
import {
  chunkEntries,
  CHUNK_INDEX_HEADER_BYTES,
  CHUNK_INDEX_HEADER_BYTES_2,
  DEFAULT_TREE_LAYOUT,
  entryHash,
  format1Layout,
  sliceSection,
  closesSection,
  encodeSection,
  MAX_INDEX_BYTES,
  placeEntries,
  sectionLength,
  type ChunkEntry,
  type ChunkIndex,
  type NodeEntry,
  type Section,
  type TreeLayout,
} from '../../../src/protocol/chunk-index.js';
import { MAX_CHUNK_INDEX_BYTES } from '../../../src/protocol/manifest.js';

function counterBytes(size: number, seed: number): Uint8Array {
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

function build(
  data: Uint8Array,
  step = 1 << 20,
  layout: TreeLayout = DEFAULT_TREE_LAYOUT,
): BuiltChunkIndex {
  const builder = new ChunkIndexBuilder(undefined, layout);
  for (let at = 0; at < data.length; at += step) builder.update(data.subarray(at, at + step));
  return builder.finish();
}

const sha = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const signedOf = (bytes: Uint8Array) => ({ sha256: sha(bytes), size: bytes.length });
const artifactOf = (built: BuiltChunkIndex) => ({
  sha256: built.index.artifactSha256,
  size: built.index.artifactSize,
});
const parse = (built: BuiltChunkIndex, bytes = built.indexBytes): ChunkIndex =>
  parseChunkIndex(bytes, signedOf(bytes), artifactOf(built));

function codeOf(run: () => unknown): string | undefined {
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
function walk(index: ChunkIndex, list: Uint8Array): ChunkEntry[] {
  const chunks: ChunkEntry[] = [];
  const visit = (section: Section, subtreesAt: number, artifactAt: number): void => {
    for (const placed of placeEntries(section, subtreesAt, artifactAt, index.artifactSize)) {
      if (!('listOffset' in placed)) {
        chunks.push(...chunkEntries(sliceSection(placed.section, placed.index, 1)));
        continue;
      }
      const own = sectionLength(placed.level, placed.entry);
      const bytes = list.subarray(placed.listOffset, placed.listOffset + own);
      const child = parseSection(bytes, placed.entry, placed.level, placed.endsArtifact, index);
      visit(child, placed.listOffset + own, placed.artifactOffset);
    }
  };
  visit(index.root, 0, 0);
  return chunks;
}

const big = counterBytes(3 * 1024 * 1024 + 12345, 1);
const bigBuilt = build(big);
/** The same artifact in format 1 (what older registries serve and older clients cached). */
const bigBuilt1 = build(big, 1 << 20, format1Layout(3));

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

/** The index bytes with `edit` applied, re-signed so only the format check can refuse. */
function tampered(edit: (bytes: Uint8Array, view: DataView) => void, from = bigBuilt.indexBytes) {
  const bytes = Uint8Array.from(from);
  edit(bytes, new DataView(bytes.buffer));
  return codeOf(() => parse(bigBuilt, bytes));
}

describe('parseChunkIndex refusals', () => {
  it('refuses index bytes that do not match the signed digest (CHUNK_INDEX_MISMATCH)', () => {
    const bytes = Uint8Array.from(bigBuilt.indexBytes);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 1;
    const signed = { sha256: bigBuilt.indexSha256, size: bytes.length };
    expect(codeOf(() => parseChunkIndex(bytes, signed, artifactOf(bigBuilt)))).toBe(
      'CHUNK_INDEX_MISMATCH',
    );
  });

  it('refuses index bytes of another length than signed (CHUNK_INDEX_MISMATCH)', () => {
    const signed = { sha256: bigBuilt.indexSha256, size: bigBuilt.indexBytes.length + 1 };
    expect(codeOf(() => parseChunkIndex(bigBuilt.indexBytes, signed, artifactOf(bigBuilt)))).toBe(
      'CHUNK_INDEX_MISMATCH',
    );
  });

  it('refuses an index of another artifact (CHUNK_INDEX_WRONG_ARTIFACT)', () => {
    const signed = signedOf(bigBuilt.indexBytes);
    const other = { sha256: sha(new Uint8Array(1)), size: big.length };
    expect(codeOf(() => parseChunkIndex(bigBuilt.indexBytes, signed, other))).toBe(
      'CHUNK_INDEX_WRONG_ARTIFACT',
    );
    const longer = { ...artifactOf(bigBuilt), size: big.length + 1 };
    expect(codeOf(() => parseChunkIndex(bigBuilt.indexBytes, signed, longer))).toBe(
      'CHUNK_INDEX_WRONG_ARTIFACT',
    );
  });

  const malformed: [string, (bytes: Uint8Array, view: DataView) => void][] = [
    ['a wrong magic', (b) => (b[0] = 0x58)],
    ['an unknown format version', (_b, v) => v.setUint8(4, 3)],
    ['an unknown chunker', (_b, v) => v.setUint8(5, 9)],
    ['fan-out bits of 0', (_b, v) => v.setUint8(6, 0)],
    ['zero levels', (_b, v) => v.setUint8(7, 0)],
    ['an average chunk size that is not a power of two', (_b, v) => v.setUint32(12, 20_000)],
    ['a minimum above the average', (_b, v) => v.setUint32(8, 1 << 20)],
    ['a zero root count', (_b, v) => v.setUint32(100, 0)],
    ['a root count over 64', (_b, v) => v.setUint32(100, 65)],
    [
      'a root count that disagrees with the length',
      (_b, v) => v.setUint32(100, v.getUint32(100) - 1),
    ],
    ['a list size that the subtrees do not fill', (_b, v) => v.setUint32(64, v.getUint32(64) + 1)],
    ['a section minimum of 1', (_b, v) => v.setUint8(104, 1)],
    ['a section maximum below the minimum', (_b, v) => v.setUint8(105, 5)],
    [
      'a node span that breaks the sum',
      (b) => (b[CHUNK_INDEX_HEADER_BYTES_2] = (b[CHUNK_INDEX_HEADER_BYTES_2] as number) ^ 1),
    ],
    ['a root cut short of its last entry', (_b, v) => v.setUint32(100, v.getUint32(100) + 1)],
  ];
  for (const [what, edit] of malformed) {
    it(`refuses ${what} (CHUNK_INDEX_MALFORMED)`, () => {
      expect(tampered(edit)).toBe('CHUNK_INDEX_MALFORMED');
    });
  }

  const malformed1: [string, (bytes: Uint8Array, view: DataView) => void][] = [
    ['format 1 with a root count that disagrees', (_b, v) => v.setUint32(100, 3)],
    ['format 1 with a node span that breaks the sum', (_b, v) => v.setUint32(108, 1)],
    ['format 1 with a node of no children', (_b, v) => v.setUint32(120, 0)],
    ['format 1 with a node of too many children', (_b, v) => v.setUint32(120, 33)],
  ];
  for (const [what, edit] of malformed1) {
    it(`refuses ${what} (CHUNK_INDEX_MALFORMED)`, () => {
      const bytes = Uint8Array.from(bigBuilt1.indexBytes);
      edit(bytes, new DataView(bytes.buffer));
      expect(codeOf(() => parse(bigBuilt1, bytes))).toBe('CHUNK_INDEX_MALFORMED');
    });
  }

  it('refuses a header cut short (CHUNK_INDEX_MALFORMED)', () => {
    const bytes = bigBuilt.indexBytes.subarray(0, 50);
    expect(codeOf(() => parse(bigBuilt, bytes))).toBe('CHUNK_INDEX_MALFORMED');
  });

  it('refuses a single-level index that names a chunk list (CHUNK_INDEX_MALFORMED)', () => {
    const small = build(counterBytes(100_000, 2));
    const bytes = Uint8Array.from(small.indexBytes);
    bytes[70] = 1;
    expect(codeOf(() => parse(small, bytes))).toBe('CHUNK_INDEX_MALFORMED');
  });

  /** A small artifact's one-level tree pushed down under a needless root of one node. */
  const needlessLevel = (layout: TreeLayout) => {
    const small = build(counterBytes(100_000, 2), 1 << 20, layout);
    const section = encodeSectionWire(small.index.root, layout.format);
    const node: NodeEntry = {
      span: small.index.artifactSize,
      subtreeBytes: section.length,
      sectionBytes: section.length,
      sha256: createHash('sha256').update(section).digest(),
    };
    const header = layout.format === 1 ? CHUNK_INDEX_HEADER_BYTES : CHUNK_INDEX_HEADER_BYTES_2;
    const bytes = small.indexBytes.subarray(0, header);
    const root = encodeSectionWire(encodeSection(1, [node]), layout.format);
    const out = new Uint8Array(bytes.length + root.length);
    out.set(bytes, 0);
    out.set(root, bytes.length);
    const view = new DataView(out.buffer);
    view.setUint8(7, 2);
    view.setUint32(64, section.length);
    out.set(createHash('sha256').update(section).digest(), 68);
    view.setUint32(100, 1);
    return { small, out, section };
  };

  it('refuses a tree with a level more than it needs (CHUNK_INDEX_MALFORMED)', () => {
    const { small, out } = needlessLevel(format1Layout(3));
    expect(codeOf(() => parse(small, out))).toBe('CHUNK_INDEX_MALFORMED');
  });

  it('refuses a format 2 tree with a level more than it needs once the list is read', () => {
    const { small, out, section } = needlessLevel(DEFAULT_TREE_LAYOUT);
    const index = parse(small, out);
    expect(codeOf(() => readWholeTree(index, section))).toBe('CHUNK_INDEX_MALFORMED');
  });
});

describe('parseSection refusals', () => {
  const index = parse(bigBuilt);
  const [first] = placeEntries(index.root, 0, 0, index.artifactSize);
  if (first === undefined || !('listOffset' in first)) throw new Error('expected a root node');
  const own = sectionLength(first.level, first.entry);
  const bytes = bigBuilt.listBytes.subarray(first.listOffset, first.listOffset + own);

  it('accepts the published section, which re-encodes to the same bytes', () => {
    const section = parseSection(bytes, first.entry, first.level, false, index);
    expect(section.count).toBeGreaterThanOrEqual(index.sectionMin);
    expect(encodeSectionWire(section, 2)).toEqual(bytes);
  });

  it('refuses a tampered section at once (CHUNK_INDEX_MISMATCH)', () => {
    const bad = Uint8Array.from(bytes);
    bad[10] = (bad[10] as number) ^ 1;
    expect(codeOf(() => parseSection(bad, first.entry, first.level, false, index))).toBe(
      'CHUNK_INDEX_MISMATCH',
    );
    expect(
      codeOf(() => parseSection(bytes.subarray(1), first.entry, first.level, false, index)),
    ).toBe('CHUNK_INDEX_MISMATCH');
  });

  /** A node that signs `section`, so only the structural checks can refuse it. */
  const signedNode = (section: Uint8Array, over: Partial<NodeEntry>): NodeEntry => ({
    ...first.entry,
    sha256: createHash('sha256').update(section).digest(),
    ...over,
  });

  it('refuses a section whose entries do not add up to the node (CHUNK_INDEX_MALFORMED)', () => {
    const node = signedNode(bytes, { span: first.entry.span + 1 });
    expect(codeOf(() => parseSection(bytes, node, first.level, false, index))).toBe(
      'CHUNK_INDEX_MALFORMED',
    );
  });

  it('refuses a level outside the tree (CHUNK_INDEX_MALFORMED)', () => {
    expect(codeOf(() => parseSection(bytes, first.entry, index.levels, false, index))).toBe(
      'CHUNK_INDEX_MALFORMED',
    );
  });

  it('refuses chunks outside the size bounds (CHUNK_INDEX_MALFORMED)', () => {
    const chunks: ChunkEntry[] = [
      { length: 100, sha256: new Uint8Array(32).fill(0xff) },
      { length: 100, sha256: new Uint8Array(32) },
    ];
    const section = encodeSectionWire(encodeSection(0, chunks), 2);
    const node: NodeEntry = {
      span: 200,
      subtreeBytes: section.length,
      sectionBytes: section.length,
      sha256: createHash('sha256').update(section).digest(),
    };
    expect(codeOf(() => parseSection(section, node, 1, false, index))).toBe(
      'CHUNK_INDEX_MALFORMED',
    );
  });

  const closing = new Uint8Array(32); // starts with zero bits: closes once the minimum is in
  const open = new Uint8Array(32).fill(0xff);
  /** A level 0 section of `count` 5000-byte chunks, closing ones at `closers`, and its node. */
  const chunkSection = (count: number, closers: readonly number[], layout = index) => {
    const chunks: ChunkEntry[] = Array.from({ length: count }, (_x, i) => ({
      length: 5000,
      sha256: closers.includes(i) ? closing : open,
    }));
    const section = encodeSectionWire(encodeSection(0, chunks), layout.format);
    const node: NodeEntry = {
      span: 5000 * count,
      subtreeBytes: section.length,
      sectionBytes: section.length,
      sha256: createHash('sha256').update(section).digest(),
    };
    return { section, node };
  };

  it('refuses a section that runs past its closing entry (CHUNK_INDEX_MALFORMED)', () => {
    const min = index.sectionMin;
    expect(closesSection(closing, min, index)).toBe(true);
    const { section, node } = chunkSection(min + 1, [min - 1]);
    expect(codeOf(() => parseSection(section, node, 1, true, index))).toBe('CHUNK_INDEX_MALFORMED');
    const exact = chunkSection(min, [min - 1]);
    expect(codeOf(() => parseSection(exact.section, exact.node, 1, false, index))).toBeUndefined();
  });

  it('refuses a section closed below the minimum (CHUNK_INDEX_MALFORMED)', () => {
    // Format 1 would close here (2 entries, zero bits); format 2's minimum says go on.
    expect(closesSection(closing, 2, format1Layout(2))).toBe(true);
    expect(closesSection(closing, 2, index)).toBe(false);
    const { section, node } = chunkSection(2, [1]);
    expect(codeOf(() => parseSection(section, node, 1, false, index))).toBe(
      'CHUNK_INDEX_MALFORMED',
    );
  });

  it('refuses a section that runs past the maximum (CHUNK_INDEX_MALFORMED)', () => {
    const max = index.sectionMax;
    const full = chunkSection(max, []);
    expect(codeOf(() => parseSection(full.section, full.node, 1, false, index))).toBeUndefined();
    const over = chunkSection(max + 1, []);
    expect(codeOf(() => parseSection(over.section, over.node, 1, true, index))).toBe(
      'CHUNK_INDEX_MALFORMED',
    );
  });

  it('refuses a section that ends before its closing entry unless it ends the artifact', () => {
    const { section, node } = chunkSection(2, []);
    expect(codeOf(() => parseSection(section, node, 1, false, index))).toBe(
      'CHUNK_INDEX_MALFORMED',
    );
    expect(codeOf(() => parseSection(section, node, 1, true, index))).toBeUndefined();
  });
});
