/**
 * Adapts the core's Scheduler (src/core/schedule/scheduler.ts: interval + jitter, capped backoff,
 * Retry-After) to the controller's CheckScheduler, with the real clock, timers and randomness.
 */
import type { Clock, Random, Timers } from '#core/ports.js';
import { Scheduler } from '#core/schedule/index.js';
import { systemClock, systemRandom, systemTimers } from '#node/node-ports.js';
import type { CheckScheduler } from './app-controller.js';

export interface CheckSchedulerOptions {
  readonly run: () => Promise<void>;
  readonly intervalMs: number;
  /** First automatic check after start (default 5 s: let the window come up first). */
  readonly initialDelayMs?: number;
  readonly clock?: Clock;
  readonly timers?: Timers;
  readonly random?: Random;
}

/** Builds the schedule of automatic checks. */
export function createCheckScheduler(options: CheckSchedulerOptions): CheckScheduler {
  const scheduler = new Scheduler({
    clock: options.clock ?? systemClock,
    timers: options.timers ?? systemTimers,
    random: options.random ?? systemRandom,
    intervalMs: options.intervalMs,
    initialDelayMs: options.initialDelayMs ?? 5_000,
    run: options.run,
  });
  return {
    start: () => scheduler.start(),
    stop: () => scheduler.stop(),
    nextRunAtMs: () => scheduler.nextRunAtMs,
    runNow: () => scheduler.runNow(),
  };
}
