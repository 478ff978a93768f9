import { describe, expect, it } from 'vitest';
import { decideRange, ifNoneMatchHits, ifRangeAllows } from '#server/updates/byte-range.js';

describe('decideRange (RFC 9110 §14)', () => {
  const cases: [string | undefined, number, ReturnType<typeof decideRange>][] = [
    [undefined, 100, { kind: 'full' }],
    ['bytes=0-9', 100, { kind: 'partial', start: 0, end: 9 }],
    ['bytes=90-', 100, { kind: 'partial', start: 90, end: 99 }],
    ['bytes=-10', 100, { kind: 'partial', start: 90, end: 99 }],
    ['bytes=-1000', 100, { kind: 'partial', start: 0, end: 99 }],
    ['bytes=50-1000', 100, { kind: 'partial', start: 50, end: 99 }],
    ['BYTES=0-0', 100, { kind: 'partial', start: 0, end: 0 }],
    ['bytes=100-', 100, { kind: 'unsatisfiable' }],
    ['bytes=100-200', 100, { kind: 'unsatisfiable' }],
    ['bytes=-0', 100, { kind: 'unsatisfiable' }],
    ['bytes=0-', 0, { kind: 'unsatisfiable' }],
    // §14.1.1: on a zero-length representation a non-zero suffix-range is satisfiable, yet no
    // Content-Range can name zero bytes, so the Range is ignored: 200 with the (empty) body.
    ['bytes=-5', 0, { kind: 'full' }],
    ['bytes=-0', 0, { kind: 'unsatisfiable' }],
    [
      'bytes=0-1,5-6',
      100,
      {
        kind: 'multipart',
        ranges: [
          [0, 1],
          [5, 6],
        ],
      },
    ],
    [
      'bytes=0-1, 5-6,95-200',
      100,
      {
        kind: 'multipart',
        ranges: [
          [0, 1],
          [5, 6],
          [95, 99],
        ],
      },
    ],
    ['bytes=0-1,150-160', 100, { kind: 'partial', start: 0, end: 1 }],
    ['bytes=150-160,170-180', 100, { kind: 'unsatisfiable' }],
    ['bytes=5-6,0-1', 100, { kind: 'full' }],
    ['bytes=0-5,5-6', 100, { kind: 'full' }],
    ['bytes=0-1,-5', 100, { kind: 'full' }],
    ['bytes=0-1,5-', 100, { kind: 'full' }],
    [
      `bytes=${Array.from({ length: 257 }, (_x, i) => `${i * 2}-${i * 2}`).join(',')}`,
      1000,
      { kind: 'full' },
    ],
    ['bytes=9-1', 100, { kind: 'full' }],
    ['bytes=-', 100, { kind: 'full' }],
    ['items=0-1', 100, { kind: 'full' }],
    ['bytes=a-b', 100, { kind: 'full' }],
    ['bytes = 0-1', 100, { kind: 'full' }],
    ['bytes=9999999999999999-', 100, { kind: 'unsatisfiable' }],
    ['bytes=99999999999999999-', 100, { kind: 'full' }],
  ];
  for (const [range, size, decision] of cases) {
    it(`answers ${JSON.stringify(range)} on ${size} bytes with ${decision.kind}`, () => {
      expect(decideRange(range, size)).toEqual(decision);
    });
  }
});

describe('ifRangeAllows (RFC 9110 §13.1.5)', () => {
  const etag = `"${'a'.repeat(64)}"`;
  it('allows the range without If-Range', () => {
    expect(ifRangeAllows(undefined, etag)).toBe(true);
  });
  it('allows the range when If-Range is our ETag', () => {
    expect(ifRangeAllows(etag, etag)).toBe(true);
  });
  it('sends the whole body when If-Range is another ETag', () => {
    expect(ifRangeAllows(`"${'b'.repeat(64)}"`, etag)).toBe(false);
  });
  it('sends the whole body when If-Range is a weak ETag', () => {
    expect(ifRangeAllows(`W/${etag}`, etag)).toBe(false);
  });
  it('sends the whole body when If-Range is a date (no Last-Modified is sent)', () => {
    expect(ifRangeAllows('Sat, 21 Nov 2026 10:00:00 GMT', etag)).toBe(false);
  });
});

describe('ifNoneMatchHits (RFC 9110 §13.1.2)', () => {
  const etag = `"${'a'.repeat(64)}"`;
  it('misses without If-None-Match', () => {
    expect(ifNoneMatchHits(undefined, etag)).toBe(false);
  });
  it('hits on our ETag in a list', () => {
    expect(ifNoneMatchHits(`"x", ${etag}`, etag)).toBe(true);
  });
  it('hits on the weak form of our ETag (weak comparison)', () => {
    expect(ifNoneMatchHits(`W/${etag}`, etag)).toBe(true);
  });
  it('hits on *', () => {
    expect(ifNoneMatchHits('*', etag)).toBe(true);
  });
  it('misses on other tags', () => {
    expect(ifNoneMatchHits(`"${'b'.repeat(64)}", W/"c"`, etag)).toBe(false);
  });
});
