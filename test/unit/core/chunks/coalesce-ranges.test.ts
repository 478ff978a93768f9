import { describe, expect, it } from 'vitest';
import {
  coalesceRanges,
  DEFAULT_COALESCE_RULE,
  rangeBytes,
  type Piece,
} from '#core/chunks/coalesce-ranges.js';

const p = (offset: number, length: number): Piece => ({ offset, length });
const spans = (pieces: Piece[], rule = DEFAULT_COALESCE_RULE): [number, number, number][] =>
  coalesceRanges(pieces, rule).map((r) => [r.start, r.end, r.pieces.length]);

describe('coalesceRanges (docs/PROTOCOL.md §2.6)', () => {
  it('merges exactly adjacent pieces into one range', () => {
    expect(spans([p(0, 100), p(100, 50), p(150, 10)])).toEqual([[0, 160, 3]]);
  });

  it('merges across a gap of at most maxGapBytes and reads the gap', () => {
    const ranges = coalesceRanges([p(0, 100), p(1124, 100)]);
    expect(ranges.map((r) => [r.start, r.end])).toEqual([[0, 1224]]);
    expect(rangeBytes(ranges)).toBe(1224);
  });

  it('keeps pieces apart across a gap one byte over the limit (a skipped 4 KiB chunk)', () => {
    expect(spans([p(0, 100), p(1125, 100)])).toEqual([
      [0, 100, 1],
      [1125, 1225, 1],
    ]);
    expect(spans([p(0, 16384), p(20480, 16384)])).toEqual([
      [0, 16384, 1],
      [20480, 36864, 1],
    ]);
  });

  it('sorts its input and keeps the pieces in order inside each range', () => {
    const ranges = coalesceRanges([p(200, 10), p(0, 100), p(100, 100)]);
    expect(ranges[0]?.pieces.map((x) => x.offset)).toEqual([0, 100, 200]);
  });

  it('stops growing a range at maxRangeBytes but never splits a piece', () => {
    const rule = { maxGapBytes: 0, maxRangeBytes: 250 };
    expect(spans([p(0, 100), p(100, 100), p(200, 100), p(300, 400)], rule)).toEqual([
      [0, 200, 2],
      [200, 300, 1],
      [300, 700, 1],
    ]);
  });

  it('plans nothing for no pieces', () => {
    expect(coalesceRanges([])).toEqual([]);
  });

  it('refuses overlapping pieces and empty ones', () => {
    expect(() => coalesceRanges([p(0, 100), p(50, 100)])).toThrow(RangeError);
    expect(() => coalesceRanges([p(0, 0)])).toThrow(RangeError);
    expect(() => coalesceRanges([p(-1, 5)])).toThrow(RangeError);
  });
});
