import { describe, expect, it } from 'vitest';
import { UpdateError } from '#core/errors.js';
import { Scheduler } from '#core/schedule/scheduler.js';
import { FakeTime } from '#test/fakes.js';

const HOUR = 3_600_000;

function setup(outcomes: (Error | undefined)[], random = () => 0.5) {
  const time = new FakeTime();
  const runs: number[] = [];
  const scheduler = new Scheduler({
    clock: time,
    timers: time,
    random,
    intervalMs: 4 * HOUR,
    jitterRatio: 0.1,
    backoffBaseMs: 30_000,
    backoffMaxMs: HOUR,
    run: () => {
      runs.push(time.nowMs());
      const outcome = outcomes.shift();
      return outcome === undefined ? Promise.resolve() : Promise.reject(outcome);
    },
  });
  return { time, runs, scheduler };
}

async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe('Scheduler', () => {
  it('runs after start, then every interval (jitter centred at 0.5)', async () => {
    const { time, runs, scheduler } = setup([]);
    scheduler.start();
    // random() = 0.5: the first run comes after half of the 10 s start-up spread.
    time.advance(5_000);
    await flush();
    expect(runs).toHaveLength(1);
    time.advance(4 * HOUR);
    await flush();
    expect(runs).toHaveLength(2);
    expect((runs[1] ?? 0) - (runs[0] ?? 0)).toBe(4 * HOUR);
    scheduler.stop();
  });

  it('spreads runs by +-jitterRatio of the interval', () => {
    const low = setup([], () => 0).scheduler.successDelayMs();
    const high = setup([], () => 0.999999).scheduler.successDelayMs();
    expect(low).toBe(3.6 * HOUR);
    expect(high).toBeGreaterThan(4.39 * HOUR);
    expect(high).toBeLessThanOrEqual(4.4 * HOUR);
  });

  it('backs off exponentially after consecutive failures, up to the cap', async () => {
    const failure = new UpdateError('NETWORK', 'down', { transient: true });
    const { scheduler } = setup(
      Array.from({ length: 12 }, () => failure),
      () => 0.999999,
    );
    const delays: number[] = [];
    for (let i = 0; i < 12; i++) {
      await scheduler.runNow();
      delays.push(scheduler.failureDelayMs(failure));
    }
    expect(scheduler.consecutiveFailures).toBe(12);
    expect(delays[0]).toBeGreaterThan(29_000);
    expect(delays[1]).toBeGreaterThan(delays[0] ?? 0);
    expect(Math.max(...delays)).toBeLessThanOrEqual(HOUR);
    scheduler.stop();
  });

  it('honours Retry-After when it is longer than the backoff', async () => {
    const failure = new UpdateError('RATE_LIMITED', '429', { retryAfterMs: 2 * HOUR });
    const { time, scheduler } = setup([failure]);
    scheduler.start();
    await scheduler.runNow();
    expect(scheduler.nextRunAtMs).toBe(time.nowMs() + 2 * HOUR);
    scheduler.stop();
  });

  it('resets the backoff after a success', async () => {
    const failure = new UpdateError('NETWORK', 'down', { transient: true });
    const { scheduler } = setup([failure, undefined]);
    await scheduler.runNow();
    expect(scheduler.consecutiveFailures).toBe(1);
    await scheduler.runNow();
    expect(scheduler.consecutiveFailures).toBe(0);
    scheduler.stop();
  });

  it('joins a run in flight instead of starting a second one', async () => {
    const { runs, scheduler } = setup([]);
    await Promise.all([scheduler.runNow(), scheduler.runNow()]);
    expect(runs).toHaveLength(1);
    scheduler.stop();
  });

  it('plans nothing after stop()', async () => {
    const { time, runs, scheduler } = setup([]);
    scheduler.start();
    scheduler.stop();
    time.advance(10 * HOUR);
    await flush();
    expect(runs).toHaveLength(0);
    expect(scheduler.nextRunAtMs).toBeNull();
  });
});
