/**
 * The server's injectable clock. Everything time-dependent (code expiry, token lifetimes,
 * subscription expiry, chain time units) reads `now()`, so POST /api/dev/clock moves it all.
 */
/**
 * The latest instant the clock may reach. RFC 3339 §5.6 dates have four-digit years, and every
 * lifetime the server stamps (manifests: at most 366 days) must still end before year 10000;
 * past Date's range (year 275760) toISOString() throws, which turned every route into a 500.
 */
export const MAX_CLOCK_MS = Date.UTC(9998, 0, 1);

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
    if (this.now() + ms > MAX_CLOCK_MS) {
      throw new RangeError('advance_ms would move the clock past 9998-01-01T00:00:00Z');
    }
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
