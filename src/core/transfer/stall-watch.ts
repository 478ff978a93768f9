/**
 * Stall and drip-feed detection for one transfer. Two rules, both fail closed as STALLED:
 * no byte for `stallTimeoutMs`, and, once a full window has elapsed, fewer than
 * `minBytesPerS` on average over the last `throughputWindowMs` (a slow-retrieval attack sends
 * just enough to defeat an idle timeout; TUF's threat list names it).
 */
import type { Clock, Timers, TimerHandle } from '../ports.js';

export interface StallWatchOptions {
  readonly clock: Clock;
  readonly timers: Timers;
  readonly stallTimeoutMs: number;
  readonly minBytesPerS: number;
  readonly throughputWindowMs: number;
  /** Called once, with the reason, when the transfer is judged stalled. */
  readonly onStall: (reason: string) => void;
}

/** Checks this often (bounded by the idle timeout, so short timeouts still fire on time). */
const TICK_MS = 1000;
const SAMPLE_MS = 100;

/**
 * One timer for every watch running on the same timers: a watch per request used to arm and
 * clear its own, a measurable share of a pull of thousands of small artifacts (docs/UPDATER.md
 * §8, "Many small artifacts"). A watch joining between ticks is first checked at the next one,
 * so a stall is still judged at most one tick after it happened, as with a timer of its own.
 */
class Ticker {
  private readonly watches = new Set<StallWatch>();
  private timer: TimerHandle | undefined;
  private delayMs = TICK_MS;

  constructor(private readonly timers: Timers) {}

  join(watch: StallWatch, delayMs: number): void {
    this.watches.add(watch);
    if (this.timer !== undefined && delayMs >= this.delayMs) return;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.arm(delayMs);
  }

  leave(watch: StallWatch): void {
    this.watches.delete(watch);
    if (this.watches.size > 0 || this.timer === undefined) return;
    // Nothing left to watch: no timer may keep the process (or a test's fake clock) busy.
    this.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(delayMs: number): void {
    this.delayMs = delayMs;
    this.timer = this.timers.setTimeout(() => this.tick(), delayMs);
  }

  private tick(): void {
    this.timer = undefined;
    let delayMs = TICK_MS;
    for (const watch of [...this.watches]) watch.tick();
    for (const watch of this.watches) delayMs = Math.min(delayMs, watch.delayMs);
    if (this.watches.size > 0) this.arm(delayMs);
  }
}

const tickers = new WeakMap<Timers, Ticker>();

function tickerOf(timers: Timers): Ticker {
  let ticker = tickers.get(timers);
  if (ticker === undefined) {
    ticker = new Ticker(timers);
    tickers.set(timers, ticker);
  }
  return ticker;
}

export class StallWatch {
  private readonly startMs: number;
  private lastByteMs: number;
  /** (time, cumulative bytes) samples, oldest first, trimmed to one window. */
  private readonly samples: { atMs: number; total: number }[] = [];
  private total = 0;
  private done = false;
  private readonly ticker: Ticker;
  /** How often this watch wants a check. */
  readonly delayMs: number;

  constructor(private readonly options: StallWatchOptions) {
    this.startMs = options.clock.nowMs();
    this.lastByteMs = this.startMs;
    this.samples.push({ atMs: this.startMs, total: 0 });
    this.delayMs = Math.max(1, Math.min(TICK_MS, options.stallTimeoutMs));
    this.ticker = tickerOf(options.timers);
    this.ticker.join(this, this.delayMs);
  }

  /** Records `count` bytes that just arrived. */
  bytes(count: number): void {
    if (this.done || count === 0) return;
    const now = this.options.clock.nowMs();
    this.total += count;
    this.lastByteMs = now;
    const last = this.samples[this.samples.length - 1];
    // One sample per SAMPLE_MS bounds memory to window/SAMPLE_MS entries at any speed.
    if (last === undefined || now - last.atMs >= SAMPLE_MS) {
      this.samples.push({ atMs: now, total: this.total });
    }
    this.check(now);
  }

  /** Stops watching (transfer finished or failed). */
  stop(): void {
    if (this.done) return;
    this.done = true;
    this.ticker.leave(this);
  }

  /** The shared timer fired: judge the transfer now. */
  tick(): void {
    if (!this.done) this.check(this.options.clock.nowMs());
  }

  private check(now: number): void {
    const o = this.options;
    if (now - this.lastByteMs >= o.stallTimeoutMs) {
      this.fire(`no data for ${now - this.lastByteMs} ms`);
      return;
    }
    const windowStart = now - o.throughputWindowMs;
    // Keep the last sample at or before the window start as the baseline.
    while (this.samples.length > 1 && (this.samples[1]?.atMs ?? now) <= windowStart) {
      this.samples.shift();
    }
    if (o.minBytesPerS === 0 || now - this.startMs < o.throughputWindowMs) return;
    const base = this.samples[0];
    if (base === undefined) return;
    const inWindow = this.total - base.total;
    const needed = (o.minBytesPerS * o.throughputWindowMs) / 1000;
    if (inWindow < needed) {
      this.fire(`${inWindow} bytes in ${o.throughputWindowMs} ms, below ${o.minBytesPerS} B/s`);
    }
  }

  private fire(reason: string): void {
    this.stop();
    this.options.onStall(reason);
  }
}
