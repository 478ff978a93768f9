/**
 * The chunk index wire format (docs/PROTOCOL.md §2.6): a content-defined Merkle tree over an
 * artifact's chunks. Level 0 entries are chunks (length + SHA-256); an entry of level l >= 1
 * is a node naming a *section*, the run of level l-1 entries it groups, by the SHA-256 of the
 * section's bytes. The small index blob (signed by digest in the manifest) holds the header
 * and the root level; the chunk list blob holds every section below the root in pre-order, so
 * a client fetches only the sections on the paths to the chunks it lacks.
 *
 * Entries hold nothing positional (no offsets, no global indexes): equal content gives equal
 * nodes wherever it sits, so whole subtrees are recognised across versions and artifacts.
 * All integers are big-endian.
 */
import { type ChunkerParams } from './fastcdc.js';
import type { TreeLayout } from './chunk-tree-layout.js';

export * from './chunk-tree-layout.js';

export const CHUNK_INDEX_MAGIC = 'VUCI';
/** Fixed-width entries, fan-out rule of 2 to 4·2^b entries per section. */
export const CHUNK_INDEX_FORMAT_1 = 1;
/** Varint entries, section bounds in the header (docs/PROTOCOL.md §2.6). */
export const CHUNK_INDEX_FORMAT_2 = 2;
/** FastCDC with the 32-bit Gear table of src/protocol/fastcdc.ts. */
export const CHUNKER_FASTCDC_GEAR32 = 1;
export const CHUNK_INDEX_HEADER_BYTES = 104;
/** Format 2 adds the section minimum and maximum (one byte each) to format 1's header. */
export const CHUNK_INDEX_HEADER_BYTES_2 = 106;
/** In memory (and on the wire in format 1): u32 length and SHA-256. */
export const CHUNK_ENTRY_BYTES = 36;
/**
 * In memory: u64 span, u64 subtree bytes, u32 section bytes, SHA-256. On the wire in format 1
 * the u32 is the child count instead (the section bytes follow from it).
 */
export const NODE_ENTRY_BYTES = 52;
/** The tree grows a level until at most this many entries are left; they form the root. */
export const MAX_ROOT_ENTRIES = 64;
export const MAX_LEVELS = 32;
/**
 * Largest index blob of any format: format 1's header and a full root of 52-byte nodes
 * (= MAX_CHUNK_INDEX_BYTES). Format 2's is smaller: 106 + 64 × 51 (two 8-byte varints, a
 * 3-byte one and the SHA-256) = 3,370 bytes.
 */
export const MAX_INDEX_BYTES = CHUNK_INDEX_HEADER_BYTES + MAX_ROOT_ENTRIES * NODE_ENTRY_BYTES;

/**
 * Artifacts of at least this size get a chunk index; below it a whole-file fetch costs about
 * what the index and its round trips would (docs/PROTOCOL.md §2.6).
 */
export const CHUNK_INDEX_MIN_BYTES = 1024 * 1024;

/** The publisher's chunking (docs/PROTOCOL.md §2.6 explains the choice). */
export const DEFAULT_CHUNKER_PARAMS: ChunkerParams = {
  minSize: 4 * 1024,
  avgSize: 16 * 1024,
  maxSize: 64 * 1024,
};

export interface ChunkEntry {
  readonly length: number;
  readonly sha256: Uint8Array;
}

export interface NodeEntry {
  /** Artifact bytes covered by the subtree. */
  readonly span: number;
  /** Bytes of the chunk list taken by the subtree: its own section and everything below. */
  readonly subtreeBytes: number;
  /** Bytes of its own section in the chunk list (format 1: child count × entry size). */
  readonly sectionBytes: number;
  /** SHA-256 of its section's bytes, as they are on the wire. */
  readonly sha256: Uint8Array;
}

/**
 * A run of entries of one level, kept decoded in fixed-width bytes (36 per chunk, 52 per node:
 * chunk-index-wire.ts converts from and to the wire) and read through the accessors below: a
 * 4 GiB artifact's tree is about 250,000 entries, and one object per entry would cost the
 * client more memory than everything else it holds.
 */
export interface Section {
  readonly level: number;
  readonly count: number;
  readonly bytes: Uint8Array;
}

/** Entry i's SHA-256 (a view, no copy). */
export function entryHash(s: Section, i: number): Uint8Array {
  const at = i * entryBytes(s.level) + (s.level === 0 ? 4 : 20);
  return s.bytes.subarray(at, at + 32);
}

/** A big-endian u32 read without making a DataView (called once per chunk on hot paths). */
function u32(b: Uint8Array, at: number): number {
  return (
    (b[at] as number) * 2 ** 24 +
    (((b[at + 1] as number) << 16) | ((b[at + 2] as number) << 8) | (b[at + 3] as number))
  );
}

/** Entry i's artifact bytes: a chunk's length or a node's span. */
export function entrySpan(s: Section, i: number): number {
  if (s.level === 0) return u32(s.bytes, i * CHUNK_ENTRY_BYTES);
  const at = i * NODE_ENTRY_BYTES;
  const hi = u32(s.bytes, at);
  return hi >= 2 ** 21 ? Number.NaN : hi * 2 ** 32 + u32(s.bytes, at + 4);
}

export function nodeAt(s: Section, i: number): NodeEntry {
  const at = i * NODE_ENTRY_BYTES;
  const b = s.bytes;
  const big = (k: number): number => {
    const hi = u32(b, k);
    return hi >= 2 ** 21 ? Number.NaN : hi * 2 ** 32 + u32(b, k + 4);
  };
  return {
    span: big(at),
    subtreeBytes: big(at + 8),
    sectionBytes: u32(b, at + 16),
    sha256: b.subarray(at + 20, at + 52),
  };
}

/** Entries i .. i+count-1 of a section, as a section (a view, no copy). */
export function sliceSection(s: Section, i: number, count: number): Section {
  const size = entryBytes(s.level);
  return { level: s.level, count, bytes: s.bytes.subarray(i * size, (i + count) * size) };
}

export interface ChunkIndex extends TreeLayout {
  readonly params: ChunkerParams;
  /** Levels of the tree; the root is level `levels - 1`. */
  readonly levels: number;
  readonly artifactSize: number;
  readonly artifactSha256: string;
  /** Size and SHA-256 of the chunk list blob; 0 and undefined when the root holds the chunks. */
  readonly listSize: number;
  readonly listSha256: string | undefined;
  readonly root: Section;
}

/** Bytes of one decoded (in-memory) entry of `level`. */
export function entryBytes(level: number): number {
  return level === 0 ? CHUNK_ENTRY_BYTES : NODE_ENTRY_BYTES;
}

const TWO_32 = 2 ** 32;

export function writeU64(view: DataView, at: number, value: number): void {
  view.setUint32(at, Math.floor(value / TWO_32));
  view.setUint32(at + 4, value >>> 0);
}

/** A u64 that fits a safe integer, or undefined. */
export function readU64(view: DataView, at: number): number | undefined {
  const hi = view.getUint32(at);
  if (hi >= 2 ** 21) return undefined;
  return hi * TWO_32 + view.getUint32(at + 4);
}

/** Writes a chunk entry at `at` of `out`. */
export function writeChunkEntry(out: Uint8Array, at: number, entry: ChunkEntry): void {
  new DataView(out.buffer, out.byteOffset, out.byteLength).setUint32(at, entry.length);
  out.set(entry.sha256, at + 4);
}

/** Writes a decoded node entry at `at` of `out`. */
export function writeNodeEntry(out: Uint8Array, at: number, entry: NodeEntry): void {
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  writeU64(view, at, entry.span);
  writeU64(view, at + 8, entry.subtreeBytes);
  view.setUint32(at + 16, entry.sectionBytes);
  out.set(entry.sha256, at + 20);
}

/** A decoded section of entries given as objects (tests, small roots). */
export function encodeSection(
  level: number,
  entries: readonly (ChunkEntry | NodeEntry)[],
): Section {
  const size = entryBytes(level);
  const bytes = new Uint8Array(entries.length * size);
  entries.forEach((entry, i) => {
    if ('length' in entry) writeChunkEntry(bytes, i * size, entry);
    else writeNodeEntry(bytes, i * size, entry);
  });
  return { level, count: entries.length, bytes };
}

/** An entry with where it sits: in the artifact, and (for a node) where its section starts. */
export type PlacedEntry =
  | {
      readonly level: 0;
      /** The section holding the chunk, and its index there. */
      readonly section: Section;
      readonly index: number;
      readonly artifactOffset: number;
      readonly endsArtifact: boolean;
    }
  | {
      readonly level: number;
      readonly entry: NodeEntry;
      readonly artifactOffset: number;
      readonly endsArtifact: boolean;
      /** Offset of the node's own section in the chunk list (its subtree starts there). */
      readonly listOffset: number;
    };

/**
 * Places a section's entries. `subtreesAt`: list offset where the first entry's subtree
 * starts (0 for the root; a node's section offset plus the section's length otherwise).
 */
export function placeEntries(
  section: Section,
  subtreesAt: number,
  artifactOffset: number,
  artifactSize: number,
): PlacedEntry[] {
  const placed: PlacedEntry[] = [];
  let listAt = subtreesAt;
  let at = artifactOffset;
  for (let i = 0; i < section.count; i++) {
    if (section.level === 0) {
      const length = entrySpan(section, i);
      placed.push({
        level: 0,
        section,
        index: i,
        artifactOffset: at,
        endsArtifact: at + length === artifactSize,
      });
      at += length;
      continue;
    }
    const entry = nodeAt(section, i);
    const endsArtifact = at + entry.span === artifactSize;
    placed.push({
      level: section.level,
      entry,
      artifactOffset: at,
      endsArtifact,
      listOffset: listAt,
    });
    at += entry.span;
    listAt += entry.subtreeBytes;
  }
  return placed;
}

/** A level 0 section's chunks as objects (tests and tools; hot paths use the accessors). */
export function chunkEntries(s: Section): ChunkEntry[] {
  return Array.from({ length: s.count }, (_x, i) => ({
    length: entrySpan(s, i),
    sha256: entryHash(s, i),
  }));
}
