/**
 * Download speed and time left for the window (docs/DESKTOP.md "Updates"), from progress
 * samples over a sliding window of recent seconds, so a burst or a pause moves the estimate
 * gently. Pure: the caller gives each sample's time. Memory is bounded by `maxSamples`.
 */
export interface RateMeter {
  /** Records that `bytes` (cumulative) had arrived at `atMs`. */
  add(bytes: number, atMs: number): void;
  /** Bytes per second over the window; null until it spans at least `minSpanMs`. */
  bytesPerSecond(): number | null;
  /** Time to receive `total` at the current speed; null when the speed is unknown or 0. */
  remainingMs(total: number): number | null;
}

export interface RateMeterOptions {
  readonly windowMs?: number;
  readonly minSpanMs?: number;
  readonly maxSamples?: number;
}

export function createRateMeter(options: RateMeterOptions = {}): RateMeter {
  const windowMs = options.windowMs ?? 5_000;
  const minSpanMs = options.minSpanMs ?? 500;
  const maxSamples = options.maxSamples ?? 256;
  const samples: { bytes: number; atMs: number }[] = [];

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
      // A new run (bytes went back) starts a new measurement.
      if (last !== undefined && bytes < last.bytes) samples.length = 0;
      samples.push({ bytes, atMs });
      // Keep one sample at or before the window's start, so the span covers the window.
      while (samples.length > 2 && (samples[1]?.atMs ?? 0) <= atMs - windowMs) samples.shift();
      if (samples.length > maxSamples) samples.splice(1, samples.length - maxSamples);
    },
    bytesPerSecond: rate,
    remainingMs(total) {
      const speed = rate();
      const last = samples.at(-1);
      if (speed === null || speed <= 0 || last === undefined) return null;
      return Math.max(0, Math.round(((total - last.bytes) * 1000) / speed));
    },
  };
}
