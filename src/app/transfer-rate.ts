/**
 * Download speed and time left for the window (docs/DESKTOP.md "Updates"): a moving average
 * over the last few seconds of one transfer. It restarts on every new transfer, on a resume
 * (bytes went back, or bytes arrive again after a gap with none: an outage or a stall), so a
 * rate is never measured across time in which nothing was being transferred. The time left is
 * told only once the measurement has run long enough to be stable. Pure: the caller gives each
 * sample's time. Memory is bounded by `maxSamples`.
 */
export interface RateMeter {
  /** Records that `bytes` (cumulative within the transfer) had arrived at `atMs`. */
  add(bytes: number, atMs: number): void;
  /** Forgets every sample: a new transfer or a resume begins. */
  restart(): void;
  /** Bytes per second over the window; null until it spans at least `minSpanMs`. */
  bytesPerSecond(): number | null;
  /** Time to receive `total`; null when the speed is unknown, 0 or not yet stable. */
  remainingMs(total: number): number | null;
}

export interface RateMeterOptions {
  /** The moving average looks this far back. */
  readonly windowMs?: number;
  /** A speed needs samples at least this far apart. */
  readonly minSpanMs?: number;
  /** The time left needs the measurement to have run this long. */
  readonly stableMs?: number;
  /** No sample for this long means the transfer stopped; the next one starts over. */
  readonly gapMs?: number;
  readonly maxSamples?: number;
}

interface Sample {
  readonly bytes: number;
  readonly atMs: number;
}

export function createRateMeter(options: RateMeterOptions = {}): RateMeter {
  const windowMs = options.windowMs ?? 5_000;
  const minSpanMs = options.minSpanMs ?? 1_000;
  const stableMs = options.stableMs ?? 3_000;
  const gapMs = options.gapMs ?? 3_000;
  const maxSamples = options.maxSamples ?? 256;
  const samples: Sample[] = [];
  /** When the current measurement began (first sample after a restart). */
  let sinceMs: number | null = null;

  const restart = (): void => {
    samples.length = 0;
    sinceMs = null;
  };

  const rate = (): number | null => {
    const first = samples[0];
    const last = samples.at(-1);
    if (first === undefined || last === undefined) return null;
    const span = last.atMs - first.atMs;
    if (span < minSpanMs) return null;
    return ((last.bytes - first.bytes) * 1000) / span;
  };

  return {
    add(bytes, atMs) {
      const last = samples.at(-1);
      if (last !== undefined && (bytes < last.bytes || atMs - last.atMs > gapMs)) restart();
      sinceMs ??= atMs;
      samples.push({ bytes, atMs });
      // Keep one sample at or before the window's start, so the span covers the window.
      while (samples.length > 2 && (samples[1]?.atMs ?? 0) <= atMs - windowMs) samples.shift();
      if (samples.length > maxSamples) samples.splice(1, samples.length - maxSamples);
    },
    restart,
    bytesPerSecond: rate,
    remainingMs(total) {
      const speed = rate();
      const last = samples.at(-1);
      if (speed === null || speed <= 0 || last === undefined || sinceMs === null) return null;
      if (last.atMs - sinceMs < stableMs) return null;
      return Math.max(0, Math.round(((total - last.bytes) * 1000) / speed));
    },
  };
}
