/**
 * A bandwidth cap shared by all parallel transfers (docs/UPDATER.md §4,
 * `maxBytesPerS`). Token bucket with a one-second burst: `take(n)` resolves when n more bytes
 * fit under `bytesPerS`. Time and sleeping come from the injected ports.
 */
import type { Clock, Timers } from '../ports.js';
import { sleep } from './retry.js';

export class RateLimit {
  /** Time at which every byte granted so far will have "drained" at the cap. */
  private drainedAtMs: number;

  constructor(
    private readonly bytesPerS: number,
    private readonly clock: Clock,
    private readonly timers: Timers,
    private readonly burstMs = 1000,
  ) {
    this.drainedAtMs = clock.nowMs();
  }

  /** Waits until `bytes` more may pass; a cap of 0 means unlimited. */
  async take(bytes: number, signal: AbortSignal): Promise<void> {
    if (this.bytesPerS <= 0 || bytes <= 0) return;
    const now = this.clock.nowMs();
    this.drainedAtMs = Math.max(this.drainedAtMs, now) + (bytes * 1000) / this.bytesPerS;
    const ahead = this.drainedAtMs - now - this.burstMs;
    if (ahead > 0) await sleep(this.timers, Math.ceil(ahead), signal);
  }
}
