/**
 * server/src/updates/gzip-frame.ts: a gzip member made of a head deflated once and a rest
 * deflated per answer inflates to exactly head + rest, for any split, and the head is not
 * deflated again for a new rest.
 */
import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { GzipFrame } from '#server/updates/gzip-frame.js';

const json = (n: number): Buffer =>
  Buffer.from(
    JSON.stringify({ items: Array.from({ length: n }, (_, i) => ({ i, h: 'ab'.repeat(32) })) }),
  );

describe('GzipFrame', () => {
  it('inflates to head + rest for every level, with gunzip checking CRC-32 and length', () => {
    const head = json(500);
    for (const level of [1, 6, 9]) {
      const frame = new GzipFrame(head, level);
      for (const rest of [Buffer.from('}'), randomBytes(3000), Buffer.alloc(0)]) {
        const coded = frame.code(rest);
        expect(Buffer.compare(gunzipSync(coded), Buffer.concat([head, rest]))).toBe(0);
      }
    }
  });

  it('codes an empty head and a head of incompressible bytes', () => {
    for (const head of [Buffer.alloc(0), randomBytes(70_000)]) {
      const coded = new GzipFrame(head, 6).code(Buffer.from('{"x":1}'));
      expect(Buffer.compare(gunzipSync(coded), Buffer.concat([head, Buffer.from('{"x":1}')]))).toBe(
        0,
      );
    }
  });

  it('compresses the answer (the head is most of it)', () => {
    const head = json(2000);
    const coded = new GzipFrame(head, 6).code(Buffer.from('}'));
    expect(coded.length).toBeLessThan(head.length / 3);
  });

  it('is refused by gunzip when a byte of the head is changed (the CRC covers it)', () => {
    const coded = Buffer.from(new GzipFrame(json(50), 6).code(Buffer.from('}')));
    const at = coded.length - 8;
    coded[at] = (coded[at] ?? 0) ^ 1;
    expect(() => gunzipSync(coded)).toThrow();
  });
});
