/**
 * The layout of a chunk tree (docs/PROTOCOL.md §2.6): the index format, which fixes how entries
 * are encoded, and the rule that groups entries into sections. Node digests hash a section's
 * encoded bytes, so two trees are compared node by node only under one layout; a client holding
 * a tree of another layout regroups its chunks first (src/node/blobs/chunk-store.ts).
 */

export type ChunkIndexFormat = 1 | 2;

/**
 * How entries are encoded and grouped into sections (docs/PROTOCOL.md §2.6). A section closes
 * at an entry when it then holds `sectionMax` entries, or at least `sectionMin` and the entry's
 * SHA-256 starts with `fanoutBits` zero bits. Format 1 fixes min 2 and max 4·2^b.
 */
export interface TreeLayout {
  readonly format: ChunkIndexFormat;
  readonly fanoutBits: number;
  readonly sectionMin: number;
  readonly sectionMax: number;
}

/** Format 1 with `fanoutBits` (the layout of every index published before format 2). */
export function format1Layout(fanoutBits: number): TreeLayout {
  return { format: 1, fanoutBits, sectionMin: 2, sectionMax: 4 << fanoutBits };
}

/** Format 2 bounds a parser accepts: at least 2 (each level at most half the one below). */
export const MIN_SECTION_MIN = 2;
export const MAX_SECTION_MAX = 128;

/** What is wrong with a layout, or undefined when a publisher may use it. */
export function treeLayoutProblem(layout: TreeLayout): string | undefined {
  const { format, fanoutBits, sectionMin, sectionMax } = layout;
  if (!Number.isInteger(fanoutBits) || fanoutBits < 1 || fanoutBits > 8) {
    return 'fan-out bits are out of range';
  }
  if (format === 1) {
    return sectionMin === 2 && sectionMax === 4 << fanoutBits
      ? undefined
      : 'format 1 fixes the section bounds';
  }
  if (format !== 2) return 'chunk index format is unknown';
  if (!Number.isInteger(sectionMin) || !Number.isInteger(sectionMax)) return 'bad section bounds';
  if (sectionMin < MIN_SECTION_MIN || sectionMax < sectionMin || sectionMax > MAX_SECTION_MAX) {
    return 'section bounds are out of range';
  }
  return undefined;
}

/**
 * The publisher's layout: format 2, sections of at least 6 entries closing on 2 zero bits,
 * at most 32 (mean about 9; docs/PROTOCOL.md §2.6 has the measurements).
 */
export const DEFAULT_TREE_LAYOUT: TreeLayout = {
  format: 2,
  fanoutBits: 2,
  sectionMin: 6,
  sectionMax: 32,
};
/** Format 1's fan-out (still parsed, and still what older caches hold). */
export const DEFAULT_FANOUT_BITS = 3;

/** The layout part of an index (what a cached tree must match to be compared node by node). */
export function layoutOf(index: TreeLayout): TreeLayout {
  const { format, fanoutBits, sectionMin, sectionMax } = index;
  return { format, fanoutBits, sectionMin, sectionMax };
}

/**
 * The grouping rule: an entry closes its section when the section then holds `sectionMax`
 * entries, or at least `sectionMin` and the entry's SHA-256 starts with b zero bits. A minimum
 * of at least 2 makes every level at most half the one below, so the tree is finite.
 */
export function closesSection(sha256: Uint8Array, entriesSoFar: number, layout: TreeLayout) {
  if (entriesSoFar >= layout.sectionMax) return true;
  return (
    entriesSoFar >= layout.sectionMin && (sha256[0] as number) >>> (8 - layout.fanoutBits) === 0
  );
}
