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

export const CHUNK_INDEX_MAGIC = 'VUCI';
export const CHUNK_INDEX_FORMAT = 1;
/** FastCDC with the 32-bit Gear table of src/protocol/fastcdc.ts. */
export const CHUNKER_FASTCDC_GEAR32 = 1;
export const CHUNK_INDEX_HEADER_BYTES = 104;
export const CHUNK_ENTRY_BYTES = 36;
export const NODE_ENTRY_BYTES = 52;
/** The tree grows a level until at most this many entries are left; they form the root. */
export const MAX_ROOT_ENTRIES = 64;
export const MAX_LEVELS = 32;
/** Largest index blob: the header and a full root of nodes (= MAX_CHUNK_INDEX_BYTES). */
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
/** Sections group about 2^3 = 8 entries (at most 32, at least 2 but the last). */
export const DEFAULT_FANOUT_BITS = 3;

export interface ChunkEntry {
  readonly length: number;
  readonly sha256: Uint8Array;
}

export interface NodeEntry {
  /** Artifact bytes covered by the subtree. */
  readonly span: number;
  /** Bytes of the chunk list taken by the subtree: its own section and everything below. */
  readonly subtreeBytes: number;
  /** Entries in its section. */
  readonly childCount: number;
  /** SHA-256 of its section's bytes. */
  readonly sha256: Uint8Array;
}

/** A run of entries of one level: chunks (level 0) or nodes (level >= 1). */
export type Section =
  | { readonly level: 0; readonly entries: readonly ChunkEntry[] }
  | { readonly level: number; readonly entries: readonly NodeEntry[] };

export interface ChunkIndex {
  readonly params: ChunkerParams;
  readonly fanoutBits: number;
  /** Levels of the tree; the root is level `levels - 1`. */
  readonly levels: number;
  readonly artifactSize: number;
  readonly artifactSha256: string;
  /** Size and SHA-256 of the chunk list blob; 0 and undefined when the root holds the chunks. */
  readonly listSize: number;
  readonly listSha256: string | undefined;
  readonly root: Section;
}

export function maxFanout(fanoutBits: number): number {
  return 4 << fanoutBits;
}

/**
 * The grouping rule: an entry closes its section when the section already holds the maximum
 * (4 * 2^b entries), or when it holds at least 2 and the entry's SHA-256 starts with b zero
 * bits. The minimum of 2 makes every level at most half the one below, so the tree is finite.
 */
export function closesSection(sha256: Uint8Array, entriesSoFar: number, fanoutBits: number) {
  if (entriesSoFar >= maxFanout(fanoutBits)) return true;
  return entriesSoFar >= 2 && (sha256[0] as number) >>> (8 - fanoutBits) === 0;
}

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

export function encodeSection(section: Section): Uint8Array {
  const size = entryBytes(section.level);
  const out = new Uint8Array(section.entries.length * size);
  const view = new DataView(out.buffer);
  section.entries.forEach((entry, i) => {
    const at = i * size;
    if ('length' in entry) {
      view.setUint32(at, entry.length);
      out.set(entry.sha256, at + 4);
    } else {
      writeU64(view, at, entry.span);
      writeU64(view, at + 8, entry.subtreeBytes);
      view.setUint32(at + 16, entry.childCount);
      out.set(entry.sha256, at + 20);
    }
  });
  return out;
}

const hexToBytes = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex, 'hex'));

/** The index blob: header then the root section. */
export function encodeChunkIndex(index: ChunkIndex): Uint8Array {
  const root = encodeSection(index.root);
  const out = new Uint8Array(CHUNK_INDEX_HEADER_BYTES + root.length);
  const view = new DataView(out.buffer);
  out.set(new TextEncoder().encode(CHUNK_INDEX_MAGIC), 0);
  view.setUint8(4, CHUNK_INDEX_FORMAT);
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
  view.setUint32(100, index.root.entries.length);
  out.set(root, CHUNK_INDEX_HEADER_BYTES);
  return out;
}

/** An entry with where it sits: in the artifact, and (for a node) where its section starts. */
export type PlacedEntry =
  | {
      readonly level: 0;
      readonly entry: ChunkEntry;
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
  if (section.level === 0) {
    for (const entry of section.entries as readonly ChunkEntry[]) {
      placed.push({
        level: 0,
        entry,
        artifactOffset: at,
        endsArtifact: at + entry.length === artifactSize,
      });
      at += entry.length;
    }
    return placed;
  }
  for (const entry of section.entries as readonly NodeEntry[]) {
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

/** The byte length of a node's own section in the chunk list. */
export function sectionLength(level: number, node: NodeEntry): number {
  return node.childCount * entryBytes(level - 1);
}
