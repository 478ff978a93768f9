import { describe, expect, it } from 'vitest';
import { createRateMeter } from '#app/transfer-rate.js';

/** Feeds `bytesPerSecond` for `seconds`, one sample a second from `fromMs`, counting on from `fromBytes`. */
function feed(
  meter: ReturnType<typeof createRateMeter>,
  fromMs: number,
  fromBytes: number,
  seconds: number,
  bytesPerSecond: number,
): { atMs: number; bytes: number } {
  let atMs = fromMs;
  let bytes = fromBytes;
  for (let i = 0; i <= seconds; i += 1) {
    meter.add(bytes, atMs);
    if (i < seconds) {
      atMs += 1_000;
      bytes += bytesPerSecond;
    }
  }
  return { atMs, bytes };
}

describe('transfer rate', () => {
  it('knows no speed before the samples span a second', () => {
    const meter = createRateMeter();
    meter.add(0, 1_000);
    meter.add(5_000, 1_900);
    expect(meter.bytesPerSecond()).toBeNull();
    expect(meter.remainingMs(10_000)).toBeNull();
  });

  it('tells the speed after a second and the time left only once stable (3 s)', () => {
    const meter = createRateMeter();
    feed(meter, 0, 0, 2, 100_000);
    expect(meter.bytesPerSecond()).toBe(100_000);
    expect(meter.remainingMs(1_000_000)).toBeNull();
    meter.add(300_000, 3_000);
    expect(meter.remainingMs(1_000_000)).toBe(7_000);
  });

  it('is a moving average over the last five seconds', () => {
    const meter = createRateMeter({ windowMs: 5_000 });
    const end = feed(meter, 0, 0, 10, 1_000_000); // 1 MB/s for 10 s
    feed(meter, end.atMs, end.bytes, 10, 2_000_000); // then 2 MB/s for 10 s
    expect(meter.bytesPerSecond()).toBe(2_000_000);
  });

  it('resume: bytes going back start a new measurement', () => {
    const meter = createRateMeter();
    feed(meter, 0, 0, 4, 900_000);
    meter.add(0, 5_000);
    expect(meter.bytesPerSecond()).toBeNull();
    expect(meter.remainingMs(1)).toBeNull();
  });

  it('outage: bytes after a long gap are measured from the resume, not across the gap', () => {
    const meter = createRateMeter();
    const before = feed(meter, 0, 0, 4, 2_000_000); // 2 MB/s
    // The registry is gone for 60 s; the transfer resumes at the same 2 MB/s.
    const after = feed(meter, before.atMs + 60_000, before.bytes, 4, 2_000_000);
    expect(meter.bytesPerSecond()).toBe(2_000_000);
    expect(meter.remainingMs(after.bytes + 4_000_000)).toBe(2_000);
  });

  it('stall: a gap longer than three seconds forgets the old speed', () => {
    const meter = createRateMeter({ gapMs: 3_000 });
    feed(meter, 0, 0, 4, 1_000_000);
    meter.add(4_000_000, 8_000); // no new byte for 4 s
    expect(meter.bytesPerSecond()).toBeNull();
  });

  it('restart() forgets everything (a new transfer)', () => {
    const meter = createRateMeter();
    feed(meter, 0, 0, 4, 1_000);
    meter.restart();
    meter.add(10_000, 5_000);
    expect(meter.bytesPerSecond()).toBeNull();
  });

  it('keeps a bounded number of samples', () => {
    const meter = createRateMeter({ windowMs: 1_000_000, maxSamples: 8, gapMs: 10 });
    for (let i = 0; i < 10_000; i += 1) meter.add(i * 10, i);
    expect(meter.bytesPerSecond()).toBeCloseTo(10_000, 0);
  });
});
