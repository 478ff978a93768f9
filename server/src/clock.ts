/**
 * The server's injectable clock. Everything time-dependent (code expiry, token lifetimes,
 * subscription expiry, chain time units) reads `now()`, so POST /api/dev/clock moves it all.
 */
export class ServerClock {
  #offsetMs = 0;
  constructor(private readonly base: () => number = Date.now) {}

  /** Milliseconds since the epoch, including any dev advance. */
  now(): number {
    return this.base() + this.#offsetMs;
  }

  /** Moves the clock forward (dev API). Negative values are refused: time never runs back. */
  advance(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('advance_ms must be >= 0');
    this.#offsetMs += ms;
    return this.now();
  }

  get offsetMs(): number {
    return this.#offsetMs;
  }

  reset(): void {
    this.#offsetMs = 0;
  }
}
