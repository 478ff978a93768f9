import { describe, expect, it } from 'vitest';
import { UpdateError } from '#core/errors.js';
import type { Timers } from '#core/ports.js';
import { createCheckScheduler } from '#app/check-scheduler.js';

/** Manual timers over a manual clock: no real time passes in these tests. */
function manualTime() {
  let now = 1_000_000;
  let pending: { at: number; callback: () => void; id: number } | null = null;
  let ids = 0;
  const timers: Timers = {
    setTimeout(callback, delayMs) {
      ids += 1;
      pending = { at: now + delayMs, callback, id: ids };
      return ids;
    },
    clearTimeout(handle) {
      if (pending?.id === handle) pending = null;
    },
  };
  return {
    clock: { nowMs: () => now },
    timers,
    now: () => now,
    pendingAt: () => pending?.at ?? null,
    fire() {
      const p = pending;
      if (p === null) throw new Error('nothing pending');
      pending = null;
      now = p.at;
      p.callback();
    },
  };
}

const HOUR = 3_600_000;

describe('check scheduler (core Scheduler with real ports swapped for manual ones)', () => {
  it('plans the first check after the initial delay, then one per interval', async () => {
    const t = manualTime();
    let runs = 0;
    const s = createCheckScheduler({
      run: () => {
        runs += 1;
        return Promise.resolve();
      },
      intervalMs: HOUR,
      initialDelayMs: 5_000,
      clock: t.clock,
      timers: t.timers,
      random: () => 0, // no jitter on the first run
    });
    s.start();
    expect(s.nextRunAtMs()).toBe(t.now() + 5_000);
    t.fire();
    await s.runNow(); // joins the run the timer started
    expect(runs).toBe(1);
    // random() = 0 means the shortest interval: interval - 10 % jitter.
    expect(s.nextRunAtMs()).toBe(t.now() + HOUR * 0.9);
  });

  it('backs off after a failure and honours Retry-After', async () => {
    const t = manualTime();
    const s = createCheckScheduler({
      run: () =>
        Promise.reject(new UpdateError('RATE_LIMITED', 'slow down', { retryAfterMs: 20 * 60_000 })),
      intervalMs: HOUR,
      clock: t.clock,
      timers: t.timers,
      random: () => 0.5,
    });
    s.start();
    await s.runNow();
    expect(s.nextRunAtMs()).toBe(t.now() + 20 * 60_000);
  });

  it('stop() cancels the plan', () => {
    const t = manualTime();
    const s = createCheckScheduler({
      run: () => Promise.resolve(),
      intervalMs: HOUR,
      clock: t.clock,
      timers: t.timers,
      random: () => 0.5,
    });
    s.start();
    s.stop();
    expect(s.nextRunAtMs()).toBeNull();
    expect(t.pendingAt()).toBeNull();
  });
});
