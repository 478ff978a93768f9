import { describe, expect, it } from 'vitest';
import { createRateMeter } from '#app/transfer-rate.js';

describe('transfer rate', () => {
  it('knows no speed before the samples span half a second', () => {
    const meter = createRateMeter();
    meter.add(0, 1_000);
    meter.add(5_000, 1_200);
    expect(meter.bytesPerSecond()).toBeNull();
    expect(meter.remainingMs(10_000)).toBeNull();
  });

  it('measures bytes per second and the time left at that speed', () => {
    const meter = createRateMeter();
    meter.add(0, 0);
    meter.add(100_000, 1_000);
    meter.add(200_000, 2_000);
    expect(meter.bytesPerSecond()).toBe(100_000);
    expect(meter.remainingMs(1_000_000)).toBe(8_000);
  });

  it('looks at the last few seconds only, so a stall slows the estimate', () => {
    const meter = createRateMeter({ windowMs: 5_000 });
    for (let t = 0; t <= 10_000; t += 1_000) meter.add(t * 1_000, t); // 1 MB/s
    meter.add(10_000_000, 15_000); // nothing for 5 s
    expect(meter.bytesPerSecond()).toBeLessThan(1_000_000);
    expect(meter.bytesPerSecond()).toBeGreaterThanOrEqual(0);
  });

  it('starts over when a new run begins (bytes go back)', () => {
    const meter = createRateMeter();
    meter.add(0, 0);
    meter.add(900_000, 1_000);
    meter.add(0, 5_000);
    expect(meter.bytesPerSecond()).toBeNull();
  });

  it('keeps a bounded number of samples', () => {
    const meter = createRateMeter({ windowMs: 1_000_000, maxSamples: 8 });
    for (let i = 0; i < 10_000; i += 1) meter.add(i * 10, i);
    expect(meter.bytesPerSecond()).toBeCloseTo(10_000, 0);
  });
});
