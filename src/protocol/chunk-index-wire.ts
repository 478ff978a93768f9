/**
 * The chunk index's wire encodings (docs/PROTOCOL.md §2.6) to and from the decoded sections
 * of chunk-index.ts. Format 1: fixed-width big-endian entries (chunk: u32 length, SHA-256;
 * node: u64 span, u64 subtree bytes, u32 child count, SHA-256). Format 2: the integers as
 * unsigned LEB128 varints (chunk: length; node: span, subtree bytes, section bytes), each
 * followed by the SHA-256. A varint must be minimal, so one tree has exactly one encoding and
 * one digest; anything else is CHUNK_INDEX_MALFORMED.
 */
import { malformed } from './chunk-index-error.js';
import {
  CHUNK_ENTRY_BYTES,
  CHUNK_INDEX_HEADER_BYTES,
  CHUNK_INDEX_HEADER_BYTES_2,
  CHUNK_INDEX_MAGIC,
  CHUNKER_FASTCDC_GEAR32,
  entryBytes,
  format1Layout,
  MAX_ROOT_ENTRIES,
  NODE_ENTRY_BYTES,
  writeU64,
  type ChunkIndex,
  type Section,
} from './chunk-index.js';
import type { ChunkIndexFormat, TreeLayout } from './chunk-tree-layout.js';

/** A varint of a safe integer (< 2^53) takes at most 8 bytes (56 bits). */
export const MAX_VARINT_BYTES = 8;

/** Bytes of `value`'s minimal varint. */
export function varintBytes(value: number): number {
  let n = 1;
  for (let v = value; v >= 128; v = Math.floor(v / 128)) n++;
  return n;
}

/** Writes `value`'s minimal varint at `at`; answers the offset after it. */
export function writeVarint(out: Uint8Array, at: number, value: number): number {
  let v = value;
  let k = at;
  while (v >= 128) {
    out[k++] = (v % 128) | 0x80;
    v = Math.floor(v / 128);
  }
  out[k++] = v;
  return k;
}

/** A read position in wire bytes. */
export class WireReader {
  constructor(
    readonly bytes: Uint8Array,
    public at = 0,
  ) {}

  /** A canonical varint: refused cut short, longer than minimal, or past 2^53 - 1. */
  varint(): number {
    let value = 0;
    let scale = 1;
    for (let k = 0; k < MAX_VARINT_BYTES; k++) {
      const byte = this.bytes[this.at + k];
      if (byte === undefined) malformed('a varint is cut short');
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) {
        if (k > 0 && byte === 0) malformed('a varint is not minimal');
        if (value > Number.MAX_SAFE_INTEGER) malformed('a varint is too large');
        this.at += k + 1;
        return value;
      }
      scale *= 128;
    }
    return malformed('a varint is too long');
  }

  sha256(): Uint8Array {
    if (this.at + 32 > this.bytes.length) malformed('a digest is cut short');
    this.at += 32;
    return this.bytes.subarray(this.at - 32, this.at);
  }

  get done(): boolean {
    return this.at >= this.bytes.length;
  }
}

/**
 * The most bytes one entry of `level` takes on the wire under `format` (format 2: a chunk's
 * length below 2^28, a node's two sizes of 8 bytes and its section bytes of 3).
 */
export function maxWireEntryBytes(level: number, format: ChunkIndexFormat): number {
  if (format === 1) return entryBytes(level);
  return level === 0 ? 4 + 32 : 8 + 8 + 3 + 32;
}

/** The fewest bytes one entry of `level` takes on the wire under `format`. */
export function minWireEntryBytes(level: number, format: ChunkIndexFormat): number {
  if (format === 1) return entryBytes(level);
  return level === 0 ? 1 + 32 : 3 + 32;
}

/** A decoded section's wire bytes under `format` (what its parent node's digest covers). */
export function encodeSectionWire(section: Section, format: ChunkIndexFormat): Uint8Array {
  const { level, count, bytes } = section;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (format === 1) {
    if (level === 0) return Uint8Array.from(bytes);
    const out = Uint8Array.from(bytes);
    const childBytes = entryBytes(level - 1);
    const outView = new DataView(out.buffer);
    for (let i = 0; i < count; i++) {
      const at = i * NODE_ENTRY_BYTES + 16;
      outView.setUint32(at, view.getUint32(at) / childBytes);
    }
    return out;
  }
  const out = new Uint8Array(count * maxWireEntryBytes(level, 2));
  let k = 0;
  for (let i = 0; i < count; i++) {
    if (level === 0) {
      const at = i * CHUNK_ENTRY_BYTES;
      k = writeVarint(out, k, view.getUint32(at));
      out.set(bytes.subarray(at + 4, at + 36), k);
    } else {
      const at = i * NODE_ENTRY_BYTES;
      k = writeVarint(out, k, view.getUint32(at) * 2 ** 32 + view.getUint32(at + 4));
      k = writeVarint(out, k, view.getUint32(at + 8) * 2 ** 32 + view.getUint32(at + 12));
      k = writeVarint(out, k, view.getUint32(at + 16));
      out.set(bytes.subarray(at + 20, at + 52), k);
    }
    k += 32;
  }
  return out.slice(0, k);
}

/**
 * Decodes wire entries of `level` from `reader`: exactly `count` of them, or (count undefined)
 * every entry to the end of the bytes. Format 1 node child counts must lie in 1..sectionMax
 * (they become section bytes); format 2 integers must be canonical varints.
 */
export function decodeSectionWire(
  reader: WireReader,
  level: number,
  count: number | undefined,
  layout: TreeLayout,
): Section {
  const size = entryBytes(level);
  if (layout.format === 1) {
    const available = Math.floor((reader.bytes.length - reader.at) / size);
    const n = count ?? available;
    if (n > available || (count === undefined && reader.bytes.length - reader.at !== n * size)) {
      malformed('a section is not a whole number of entries');
    }
    // A copy (never `slice`: on a Buffer it is a view, and the child counts are rewritten).
    const out = Uint8Array.from(reader.bytes.subarray(reader.at, reader.at + n * size));
    reader.at += n * size;
    if (level > 0) {
      const view = new DataView(out.buffer);
      for (let i = 0; i < n; i++) {
        const at = i * NODE_ENTRY_BYTES + 16;
        const children = view.getUint32(at);
        if (children < 1 || children > layout.sectionMax) {
          malformed('a node child count is out of range');
        }
        view.setUint32(at, children * entryBytes(level - 1));
      }
    }
    return { level, count: n, bytes: out };
  }
  // One buffer per section, sized for the most entries the bytes can hold (no object per entry).
  const most = count ?? Math.floor((reader.bytes.length - reader.at) / minWireEntryBytes(level, 2));
  const out = new Uint8Array(most * size);
  const view = new DataView(out.buffer);
  let n = 0;
  while (count === undefined ? !reader.done : n < count) {
    if (n >= most) malformed('a section holds more entries than its bytes allow');
    const at = n * size;
    if (level === 0) {
      const length = reader.varint();
      if (length >= 2 ** 32) malformed('a chunk length is out of bounds');
      view.setUint32(at, length);
      out.set(reader.sha256(), at + 4);
    } else {
      writeU64(view, at, reader.varint());
      writeU64(view, at + 8, reader.varint());
      const own = reader.varint();
      if (own >= 2 ** 32) malformed('a node section is too long');
      view.setUint32(at + 16, own);
      out.set(reader.sha256(), at + 20);
    }
    n++;
  }
  return { level, count: n, bytes: out.subarray(0, n * size) };
}

const hexToBytes = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex, 'hex'));

/** Header bytes of an index blob of `format`. */
export function headerBytes(format: ChunkIndexFormat): number {
  return format === 1 ? CHUNK_INDEX_HEADER_BYTES : CHUNK_INDEX_HEADER_BYTES_2;
}

/** The index blob: header then the root section, both in the index's format. */
export function encodeChunkIndex(index: ChunkIndex): Uint8Array {
  const root = encodeSectionWire(index.root, index.format);
  const header = headerBytes(index.format);
  const out = new Uint8Array(header + root.length);
  const view = new DataView(out.buffer);
  out.set(new TextEncoder().encode(CHUNK_INDEX_MAGIC), 0);
  view.setUint8(4, index.format);
  view.setUint8(5, CHUNKER_FASTCDC_GEAR32);
  view.setUint8(6, index.fanoutBits);
  view.setUint8(7, index.levels);
  view.setUint32(8, index.params.minSize);
  view.setUint32(12, index.params.avgSize);
  view.setUint32(16, index.params.maxSize);
  writeU64(view, 20, index.artifactSize);
  out.set(hexToBytes(index.artifactSha256), 28);
  writeU64(view, 60, index.listSize);
  if (index.listSha256 !== undefined) out.set(hexToBytes(index.listSha256), 68);
  view.setUint32(100, index.root.count);
  if (index.format === 2) {
    view.setUint8(104, index.sectionMin);
    view.setUint8(105, index.sectionMax);
  }
  out.set(root, header);
  return out;
}

/** Length of the index blob that starts `bytes` (a cached tree: the index, then the list). */
export function indexBlobLength(bytes: Uint8Array): number {
  const format = bytes[4];
  if (format !== 1 && format !== 2) malformed('chunk index format is unknown');
  const header = headerBytes(format);
  if (bytes.length < header) malformed('chunk index is shorter than its header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const fanoutBits = view.getUint8(6);
  const rootCount = view.getUint32(100);
  if (rootCount > MAX_ROOT_ENTRIES) malformed('root entry count is out of range');
  const layout: TreeLayout =
    format === 1
      ? format1Layout(fanoutBits)
      : { format, fanoutBits, sectionMin: view.getUint8(104), sectionMax: view.getUint8(105) };
  const reader = new WireReader(bytes.subarray(header));
  decodeSectionWire(reader, Math.max(0, view.getUint8(7) - 1), rootCount, layout);
  return header + reader.at;
}
