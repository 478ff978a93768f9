import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  decodeSectionWire,
  encodeSectionWire,
  varintBytes,
  WireReader,
  writeVarint,
} from '#protocol/chunk-index-wire.js';
import {
  DEFAULT_TREE_LAYOUT,
  encodeSection,
  format1Layout,
  nodeAt,
  type ChunkEntry,
  type NodeEntry,
} from '#protocol/chunk-index.js';
import { codeOf } from '#test/chunk-index-kit.js';

const digest = (seed: number): Uint8Array => createHash('sha256').update(String(seed)).digest();

const varint = (bytes: number[]): number => new WireReader(Uint8Array.from(bytes)).varint();

describe('format 2 varints (docs/PROTOCOL.md §2.6)', () => {
  it('round-trips every size class up to 2^53 - 1 in the fewest bytes', () => {
    for (const value of [
      0,
      1,
      127,
      128,
      16_383,
      16_384,
      65_536,
      2 ** 32,
      Number.MAX_SAFE_INTEGER,
    ]) {
      const out = new Uint8Array(8);
      const end = writeVarint(out, 0, value);
      expect(end).toBe(varintBytes(value));
      const reader = new WireReader(out.subarray(0, end));
      expect(reader.varint()).toBe(value);
      expect(reader.done).toBe(true);
    }
    expect(varintBytes(16_383)).toBe(2);
    expect(varintBytes(16_384)).toBe(3);
  });

  it('refuses a non-minimal varint (CHUNK_INDEX_MALFORMED)', () => {
    expect(codeOf(() => varint([0x81, 0x00]))).toBe('CHUNK_INDEX_MALFORMED');
    expect(codeOf(() => varint([0x80, 0x80, 0x00]))).toBe('CHUNK_INDEX_MALFORMED');
    expect(codeOf(() => varint([0x80, 0x01]))).toBeUndefined();
  });

  it('refuses an overlong varint (CHUNK_INDEX_MALFORMED)', () => {
    expect(codeOf(() => varint([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]))).toBe(
      'CHUNK_INDEX_MALFORMED',
    );
    // Eight bytes, but past 2^53 - 1.
    expect(codeOf(() => varint([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]))).toBe(
      'CHUNK_INDEX_MALFORMED',
    );
  });

  it('refuses a truncated varint or digest (CHUNK_INDEX_MALFORMED)', () => {
    expect(codeOf(() => varint([0x80]))).toBe('CHUNK_INDEX_MALFORMED');
    expect(codeOf(() => varint([]))).toBe('CHUNK_INDEX_MALFORMED');
    const wire = encodeSectionWire(encodeSection(0, [{ length: 5000, sha256: digest(1) }]), 2);
    for (const cut of [1, wire.length - 1]) {
      const reader = new WireReader(wire.subarray(0, cut));
      expect(codeOf(() => decodeSectionWire(reader, 0, undefined, DEFAULT_TREE_LAYOUT))).toBe(
        'CHUNK_INDEX_MALFORMED',
      );
    }
  });
});

describe('section encodings', () => {
  const chunks: ChunkEntry[] = [100, 5000, 20_000, 65_536].map((length, i) => ({
    length,
    sha256: digest(i),
  }));
  const nodes: NodeEntry[] = [
    { span: 300_000, subtreeBytes: 420, sectionBytes: 420, sha256: digest(10) },
    { span: 2 ** 33, subtreeBytes: 90_000, sectionBytes: 600, sha256: digest(11) },
  ];

  it('round-trips chunks and nodes in format 2, with varint-sized entries', () => {
    const level0 = encodeSection(0, chunks);
    const wire0 = encodeSectionWire(level0, 2);
    // 1 + 2 + 3 + 3 length bytes and four digests.
    expect(wire0.length).toBe(9 + 4 * 32);
    const back0 = decodeSectionWire(new WireReader(wire0), 0, undefined, DEFAULT_TREE_LAYOUT);
    expect(back0.bytes).toEqual(level0.bytes);
    const level1 = encodeSection(1, nodes);
    const wire1 = encodeSectionWire(level1, 2);
    // (3 + 2 + 2) and (5 + 3 + 2) integer bytes: the 38-41 byte node of §2.6.
    expect(wire1.length).toBe(17 + 2 * 32);
    const back1 = decodeSectionWire(new WireReader(wire1), 1, undefined, DEFAULT_TREE_LAYOUT);
    const { sha256, ...sizes } = nodeAt(back1, 1);
    expect(sizes).toEqual({ span: 2 ** 33, subtreeBytes: 90_000, sectionBytes: 600 });
    expect(Buffer.from(sha256)).toEqual(Buffer.from(digest(11)));
  });

  it('round-trips format 1, where a node names its child count', () => {
    const layout = format1Layout(3);
    const level1 = encodeSection(1, [
      { span: 300_000, subtreeBytes: 36 * 5, sectionBytes: 36 * 5, sha256: digest(12) },
    ]);
    const wire = encodeSectionWire(level1, 1);
    expect(wire.length).toBe(52);
    expect(new DataView(wire.buffer).getUint32(16)).toBe(5);
    expect(decodeSectionWire(new WireReader(wire), 1, undefined, layout).bytes).toEqual(
      level1.bytes,
    );
    expect(
      codeOf(() => decodeSectionWire(new WireReader(wire.subarray(1)), 1, undefined, layout)),
    ).toBe('CHUNK_INDEX_MALFORMED');
  });
});
