/**
 * Randomness for ids and secrets. Without a seed it is the platform CSPRNG. With --seed it is a
 * deterministic SHA-256 counter stream, so QA runs can reproduce ids and secrets exactly (never
 * use --seed outside tests: anyone who knows the seed knows the secrets).
 */
import { createHash } from 'node:crypto';
import { RandomPool } from './random-pool.js';

export interface RandomSource {
  bytes(n: number): Buffer;
  /** base64url of `n` random bytes: Bearer-safe (RFC 6750 b64token). */
  token(n: number): string;
}

export function createRandom(seed: number | undefined): RandomSource {
  if (seed === undefined) {
    const pool = new RandomPool(); // one CSPRNG call per 4 KiB of ids, not per id
    return { bytes: (n) => pool.take(n), token: (n) => pool.take(n).toString('base64url') };
  }
  let counter = 0n;
  const next = (n: number): Buffer => {
    const chunks: Buffer[] = [];
    let have = 0;
    while (have < n) {
      const block = createHash('sha256').update(`seed:${seed}:${counter++}`).digest();
      chunks.push(block);
      have += block.length;
    }
    return Buffer.concat(chunks).subarray(0, n);
  };
  return { bytes: next, token: (n) => next(n).toString('base64url') };
}
