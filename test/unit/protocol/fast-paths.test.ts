/**
 * The two performance fast paths added for 10,000-artifact manifests (docs/PROTOCOL.md §2): they
 * must agree with the slow reference on every input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareNames } from '#protocol/artifact-name.js';
import { decodeBase64Strict } from '#protocol/envelope.js';

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

describe('decodeBase64Strict (canonical check without a round trip)', () => {
  it('decodes canonical base64 of any bytes, short or long', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        const text = Buffer.from(bytes).toString('base64');
        expect(decodeBase64Strict(text, 'x')).toEqual(new Uint8Array(bytes));
      }),
      { numRuns: 500 },
    );
  });

  for (const bad of [
    'QR==',
    'QQ',
    'QQ==QQ==',
    'Q Q==',
    '-_8=',
    'QUJD\n',
    `${'QUJD'.repeat(100)}QR==`,
    // Past the regex guard's 256 characters: each shape must be refused by the length,
    // alphabet and last-quantum checks alone.
    `${'QUJD'.repeat(100)}QQ==${'QUJD'.repeat(2)}`,
    `${'QUJD'.repeat(100)}Q.JD`,
    `${'QUJD'.repeat(100)}QU-D`,
    `${'QUJD'.repeat(100)}QU_D`,
    `${'QUJD'.repeat(100)}Q===`,
    `${'QUJD'.repeat(100)}====`,
    `${'QUJD'.repeat(100)}QUJ=`,
    `${'QUJD'.repeat(100)}QUJ`,
    `${'QUJD'.repeat(50)} ${'QUJD'.repeat(50)}QUJ`,
    `${'QUJD'.repeat(50)}....${'QUJD'.repeat(50)}`,
    `${'QUJD'.repeat(50)}QU-D${'QUJD'.repeat(50)}`,
    `${'QUJD'.repeat(50)}QU_D${'QUJD'.repeat(50)}`,
  ]) {
    it(`refuses ${JSON.stringify(bad.length > 20 ? `${bad.slice(0, 8)}...${bad.slice(-4)}` : bad)}`, () => {
      expect(() => decodeBase64Strict(bad, 'x')).toThrow(
        expect.objectContaining({ code: 'ENVELOPE_MALFORMED' }),
      );
    });
  }
});
