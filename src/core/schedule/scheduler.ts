/**
 * When to run the next check: every `intervalMs` with +-jitter (Omaha-style thundering-herd
 * avoidance), capped exponential backoff after failures, and never sooner than the server's
 * Retry-After (RFC 9110 §10.2.3). Time comes from the injected clock and timers.
 *
 * @example
 * const s = new Scheduler({ ...ports, intervalMs: 4 * 3_600_000, run: () => updater.update() });
 * s.start();
 */
import { isUpdateError } from '../errors.js';
import type { Clock, Random, TimerHandle, Timers } from '../ports.js';

export interface SchedulerOptions {
  readonly clock: Clock;
  readonly timers: Timers;
  readonly random: Random;
  /** Time between successful runs. */
  readonly intervalMs: number;
  /** Fraction of the interval added or removed at random, 0 to 1 (default 0.1). */
  readonly jitterRatio?: number;
  /** First delay after a failure; doubles per consecutive failure (default 30 s). */
  readonly backoffBaseMs?: number;
  /** Backoff ceiling (default: the interval). */
  readonly backoffMaxMs?: number;
  /** Retry-After is honoured up to this (default 24 h): a hostile server cannot park us. */
  readonly maxRetryAfterMs?: number;
  /** Delay before the first run after start() (default 0, plus jitter of up to 10 s). */
  readonly initialDelayMs?: number;
  readonly run: () => Promise<unknown>;
  readonly onError?: (error: unknown) => void;
}

export class Scheduler {
  private timer: TimerHandle | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private failures = 0;
  private nextAt: number | null = null;

  constructor(private readonly options: SchedulerOptions) {}

  /** Consecutive failed runs so far. */
  get consecutiveFailures(): number {
    return this.failures;
  }

  /** Epoch ms of the next planned run, or null when stopped. */
  get nextRunAtMs(): number | null {
    return this.nextAt;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const initial = this.options.initialDelayMs ?? 0;
    this.schedule(
      initial + Math.floor(this.options.random() * Math.min(10_000, this.options.intervalMs)),
    );
  }

  stop(): void {
    this.stopped = true;
    this.clear();
    this.nextAt = null;
  }

  /** Runs now (joining a run in flight), then plans the next one from the outcome. */
  runNow(): Promise<void> {
    if (this.running !== undefined) return this.running;
    this.clear();
    const run = (async () => {
      let delay: number;
      try {
        await this.options.run();
        this.failures = 0;
        delay = this.successDelayMs();
      } catch (error) {
        this.failures++;
        this.options.onError?.(error);
        delay = this.failureDelayMs(error);
      } finally {
        this.running = undefined;
      }
      if (!this.stopped) this.schedule(delay);
    })();
    this.running = run;
    return run;
  }

  /** interval +- jitterRatio * interval. */
  successDelayMs(): number {
    const { intervalMs, random } = this.options;
    const ratio = Math.min(1, Math.max(0, this.options.jitterRatio ?? 0.1));
    return Math.max(0, Math.round(intervalMs * (1 - ratio + 2 * ratio * random())));
  }

  /** min(max, base * 2^(failures-1)) with equal jitter, raised to any Retry-After. */
  failureDelayMs(error: unknown): number {
    const base = this.options.backoffBaseMs ?? 30_000;
    const max = this.options.backoffMaxMs ?? this.options.intervalMs;
    const exp = Math.min(max, base * 2 ** Math.min(this.failures - 1, 30));
    const backoff = Math.round(exp / 2 + (this.options.random() * exp) / 2);
    const asked = isUpdateError(error) ? error.retryAfterMs : undefined;
    if (asked === undefined) return backoff;
    return Math.max(backoff, Math.min(asked, this.options.maxRetryAfterMs ?? 86_400_000));
  }

  private schedule(delayMs: number): void {
    this.clear();
    this.nextAt = this.options.clock.nowMs() + delayMs;
    this.timer = this.options.timers.setTimeout(() => {
      this.timer = undefined;
      void this.runNow();
    }, delayMs);
  }

  private clear(): void {
    if (this.timer !== undefined) this.options.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
