/**
 * The range-coalescing rule of the chunked download (docs/PROTOCOL.md §2.6): pieces (chunks
 * of an artifact, or sections of a chunk list) that must be fetched are merged into few HTTP
 * ranges. Two neighbours share a range when the gap between them is at most `maxGapBytes`
 * and the merged range stays within `maxRangeBytes`; a piece is never split, because each is
 * verified on its own as soon as its last byte arrives. Gap bytes are read and dropped.
 */

export interface Piece {
  /** First byte in the resource. */
  readonly offset: number;
  readonly length: number;
}

export interface PlannedRange<P extends Piece> {
  readonly start: number;
  /** One past the last byte (the HTTP range is `start`..`end - 1`). */
  readonly end: number;
  /** The pieces inside, in order, disjoint. */
  readonly pieces: readonly P[];
}

export interface CoalesceRule {
  /** Largest gap of unneeded bytes fetched to save a request. */
  readonly maxGapBytes: number;
  /** A merged range is not grown past this (a single larger piece keeps its own range). */
  readonly maxRangeBytes: number;
}

/**
 * Why 1 KiB: a range request costs about 300 bytes of response headers plus a request slot,
 * so a gap of up to a few hundred bytes is cheaper to read than to skip. Gaps between chunks
 * are whole reused chunks (at least the 4 KiB minimum), so chunk data is only merged when
 * exactly adjacent; chunk list sections, which sit next to each other in pre-order, merge.
 * Ranges stop at 8 MiB so that a long run still spreads over the parallel connections.
 */
export const DEFAULT_COALESCE_RULE: CoalesceRule = {
  maxGapBytes: 1024,
  maxRangeBytes: 8 * 1024 * 1024,
};

/** Pieces sorted by offset, merged by the rule. Overlapping pieces are a RangeError. */
export function coalesceRanges<P extends Piece>(
  pieces: readonly P[],
  rule: CoalesceRule = DEFAULT_COALESCE_RULE,
): PlannedRange<P>[] {
  const sorted = [...pieces].sort((a, b) => a.offset - b.offset);
  const ranges: PlannedRange<P>[] = [];
  let current: { start: number; end: number; pieces: P[] } | undefined;
  for (const piece of sorted) {
    if (!Number.isSafeInteger(piece.offset) || piece.offset < 0 || piece.length < 1) {
      throw new RangeError('a piece needs a non-negative offset and a positive length');
    }
    const end = piece.offset + piece.length;
    if (current !== undefined && piece.offset < current.end) {
      throw new RangeError('pieces overlap');
    }
    if (
      current !== undefined &&
      piece.offset - current.end <= rule.maxGapBytes &&
      end - current.start <= rule.maxRangeBytes
    ) {
      current.end = end;
      current.pieces.push(piece);
      continue;
    }
    if (current !== undefined) ranges.push(current);
    current = { start: piece.offset, end, pieces: [piece] };
  }
  if (current !== undefined) ranges.push(current);
  return ranges;
}

/** Bytes the ranges fetch, gaps included. */
export function rangeBytes(ranges: readonly PlannedRange<Piece>[]): number {
  return ranges.reduce((sum, r) => sum + (r.end - r.start), 0);
}
