import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  artifactOf,
  bigFixture,
  build,
  codeOf,
  counterBytes,
  parse,
  sha,
  signedOf,
} from '#test/chunk-index-kit.js';
import { parseChunkIndex, parseSection, readWholeTree } from '#protocol/chunk-index-parse.js';
import { encodeSectionWire } from '#protocol/chunk-index-wire.js';
import {
  CHUNK_INDEX_HEADER_BYTES,
  CHUNK_INDEX_HEADER_BYTES_2,
  DEFAULT_TREE_LAYOUT,
  format1Layout,
  closesSection,
  encodeSection,
  placeEntries,
  type ChunkEntry,
  type NodeEntry,
  type TreeLayout,
} from '#protocol/chunk-index.js';

const { big, bigBuilt, bigBuilt1 } = bigFixture();

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
  const own = first.entry.sectionBytes;
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

  it('refuses a signed section whose varint is not minimal (CHUNK_INDEX_MALFORMED)', () => {
    const { section, node: plain } = chunkSection(index.sectionMin, [index.sectionMin - 1]);
    expect(codeOf(() => parseSection(section, plain, 1, false, index))).toBeUndefined();
    // 5000 is 0x88 0x27; the same value in three bytes (0x88 0xa7 0x00) is refused, although
    // the node signs exactly these bytes.
    expect([section[0], section[1]]).toEqual([0x88, 0x27]);
    const longer = new Uint8Array(section.length + 1);
    longer.set([0x88, 0xa7, 0x00], 0);
    longer.set(section.subarray(2), 3);
    const node: NodeEntry = {
      span: 5000 * index.sectionMin,
      subtreeBytes: longer.length,
      sectionBytes: longer.length,
      sha256: createHash('sha256').update(longer).digest(),
    };
    expect(codeOf(() => parseSection(longer, node, 1, false, index))).toBe('CHUNK_INDEX_MALFORMED');
  });

  it('refuses a section that ends before its closing entry unless it ends the artifact', () => {
    const { section, node } = chunkSection(2, []);
    expect(codeOf(() => parseSection(section, node, 1, false, index))).toBe(
      'CHUNK_INDEX_MALFORMED',
    );
    expect(codeOf(() => parseSection(section, node, 1, true, index))).toBeUndefined();
  });
});
