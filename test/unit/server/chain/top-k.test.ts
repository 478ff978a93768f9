import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { selectTop } from '#server/chain/top-k.js';

describe('top-k selection', () => {
  it('returns the k best, best first', () => {
    expect(selectTop(Uint32Array.of(5, 1, 9, 3, 7), 5, 3, (a, b) => a > b)).toEqual([9, 7, 5]);
  });

  it('returns everything when k exceeds n, and nothing when k is 0', () => {
    expect(selectTop(Uint32Array.of(2, 1), 2, 10, (a, b) => a > b)).toEqual([2, 1]);
    expect(selectTop(Uint32Array.of(2, 1), 2, 0, (a, b) => a > b)).toEqual([]);
  });

  it('only looks at the first n candidates', () => {
    expect(selectTop(Uint32Array.of(1, 2, 99), 2, 5, (a, b) => a > b)).toEqual([2, 1]);
  });

  it('equals a full sort for any input', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.nat(10_000), { maxLength: 300 }), fc.nat(50), (values, k) => {
        const expected = [...values].sort((a, b) => b - a).slice(0, k);
        expect(selectTop(Uint32Array.from(values), values.length, k, (a, b) => a > b)).toEqual(
          expected,
        );
      }),
      { numRuns: 200 },
    );
  });
});
