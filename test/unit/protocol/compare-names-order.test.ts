import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareNames } from '../../../src/protocol/artifact-name.js';

/** The reference order: byte order of the UTF-8 encodings. */
const reference = (a: string, b: string): number =>
  Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

describe('compareNames (fast path) agrees with UTF-8 byte order', () => {
  it('for any two strings, surrogates and lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        expect(Math.sign(compareNames(a, b))).toBe(reference(a, b));
      }),
      { numRuns: 2000 },
    );
  });

  it('for strings sharing a long prefix', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string({ unit: 'grapheme' }),
        fc.string({ unit: 'binary' }),
        (p, a, b) => {
          expect(Math.sign(compareNames(p + a, p + b))).toBe(reference(p + a, p + b));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('orders a supplementary character after U+FFFD, as UTF-8 does', () => {
    expect(compareNames('\u{1F600}', '\uFFFD')).toBe(1);
    expect(compareNames('a', 'ab')).toBe(-1);
    expect(compareNames('same', 'same')).toBe(0);
  });
});
