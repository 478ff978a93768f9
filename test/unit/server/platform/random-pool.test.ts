/**
 * The pooled CSPRNG: every value is new bytes of the requested length, across refills, and a
 * request larger than the pool is served directly.
 */
import { expect, it } from 'vitest';
import { RandomPool } from '#server/platform/random-pool.js';

it('hands out values of the requested length that never repeat, across many refills', () => {
  const pool = new RandomPool();
  const seen = new Set<string>();
  for (let i = 0; i < 2000; i++) {
    const n = i % 2 === 0 ? 12 : 32; // IVs and ids, 44 KiB in all: about 11 refills
    const value = pool.take(n);
    expect(value.length).toBe(n);
    seen.add(value.toString('hex'));
  }
  expect(seen.size).toBe(2000);
});

it('values are independent copies: changing one does not change the next', () => {
  const pool = new RandomPool();
  const a = pool.take(32);
  const before = Buffer.from(a);
  a.fill(0);
  const b = pool.take(32);
  expect(b.equals(Buffer.alloc(32))).toBe(false);
  expect(b.equals(before)).toBe(false);
});

it('a value larger than the pool is served whole', () => {
  const value = new RandomPool().take(10_000);
  expect(value.length).toBe(10_000);
  expect(value.subarray(9_000).equals(Buffer.alloc(1_000))).toBe(false);
});
