/**
 * A pooled CSPRNG: one `randomFillSync` of 4 KiB serves about a hundred 32-byte ids or 12-byte
 * IVs, instead of one call into OpenSSL per value (Node pools `crypto.randomUUID` the same
 * way). Every value is a copy of bytes that were never handed out before, so pooling changes
 * the cost, not the randomness: each value is still fresh output of the platform CSPRNG.
 */
import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;

export class RandomPool {
  readonly #pool = Buffer.allocUnsafeSlow(POOL_BYTES);
  #offset = POOL_BYTES;

  /** `n` fresh random bytes (a new Buffer the caller owns). */
  take(n: number): Buffer {
    if (n > POOL_BYTES) return randomFillSync(Buffer.allocUnsafe(n));
    if (this.#offset + n > POOL_BYTES) {
      randomFillSync(this.#pool);
      this.#offset = 0;
    }
    const out = Buffer.allocUnsafe(n);
    this.#pool.copy(out, 0, this.#offset, this.#offset + n);
    // Wipe what was handed out, so no byte can be returned twice even by a bug here.
    this.#pool.fill(0, this.#offset, this.#offset + n);
    this.#offset += n;
    return out;
  }
}
