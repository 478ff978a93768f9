/**
 * A small seeded PRNG (mulberry32) and a 32-bit mixer, for the simulator only: fast and
 * reproducible, never for secrets (server/src/platform/random.ts covers those).
 */

/** Returns a generator of floats in [0, 1) fully determined by the 32-bit `seed`. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mixes a seed and an integer (any safe integer, e.g. a unit index) into a 32-bit seed. */
export function mixSeed(seed: number, value: number): number {
  const lo = value >>> 0;
  const hi = Math.floor(value / 4294967296) >>> 0;
  let h = (seed >>> 0) ^ 0x9e3779b9;
  for (const word of [lo, hi]) {
    h = Math.imul(h ^ word, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}
