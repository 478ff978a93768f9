import { describe, expect, it } from 'vitest';
import { resolveLimits } from '#core/limits.js';
import { RateLimit } from '#core/transfer/rate-limit.js';
import { FakeTime } from '#test/fakes.js';

const signal = new AbortController().signal;

describe('RateLimit', () => {
  it('lets a one-second burst through without waiting', async () => {
    const time = new FakeTime();
    const cap = new RateLimit(100_000, time, time);
    await cap.take(100_000, signal);
    expect(time.timerCount).toBe(0);
  });

  it('makes the caller wait once it is ahead of the cap', async () => {
    const time = new FakeTime();
    const cap = new RateLimit(100_000, time, time);
    await cap.take(100_000, signal);
    let done = false;
    const pending = cap.take(50_000, signal).then(() => {
      done = true;
    });
    await Promise.resolve();
    expect(done).toBe(false);
    time.advance(499);
    await Promise.resolve();
    expect(done).toBe(false);
    time.advance(1);
    await pending;
    expect(done).toBe(true);
  });

  it('never waits with a cap of 0 (unlimited)', async () => {
    const time = new FakeTime();
    await new RateLimit(0, time, time).take(1e12, signal);
    expect(time.timerCount).toBe(0);
  });

  it('is refused below 64 KiB/s or below minBytesPerS (CONFIG_INVALID)', () => {
    expect(() => resolveLimits({ maxBytesPerS: 1000 })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
    expect(() => resolveLimits({ maxBytesPerS: 100_000, minBytesPerS: 200_000 })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
    expect(resolveLimits({ maxBytesPerS: 100_000 }).maxBytesPerS).toBe(100_000);
  });
});
