/**
 * Retries for transient failures only (docs/ARCHITECTURE.md §Habits): a dropped connection, a stall, a
 * 5xx or a 429 is tried again after a capped exponential backoff with jitter, or after the
 * server's Retry-After. A refusal of signed data (signature, hash, size, policy) never is.
 */
import { UpdateError } from '../errors.js';
import type { Limits } from '../limits.js';
import type { Random, Timers } from '../ports.js';

/** Backoff before retry `attempt` (0-based): base * 2^attempt, capped, "equal jitter". */
export function backoffDelayMs(
  attempt: number,
  baseMs: number,
  maxMs: number,
  random: Random,
): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.round(exp / 2 + (random() * exp) / 2);
}

/** Waits `ms` on the injected timers; rejects with ABORTED when `signal` fires first. */
export function sleep(timers: Timers, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new UpdateError('ABORTED', 'aborted'));
      return;
    }
    const onAbort = (): void => {
      timers.clearTimeout(handle);
      reject(new UpdateError('ABORTED', 'aborted'));
    };
    const handle = timers.setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export interface RetryContext {
  readonly limits: Limits;
  readonly timers: Timers;
  readonly random: Random;
  readonly signal: AbortSignal;
  readonly onRetry?: (error: UpdateError, attempt: number, delayMs: number) => void;
}

/** Runs `attempt` up to 1 + limits.retries times while its failures are transient. */
export async function withRetries<T>(
  ctx: RetryContext,
  attempt: (n: number) => Promise<T>,
): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (ctx.signal.aborted) throw new UpdateError('ABORTED', 'aborted', { cause: error });
      // Only an UpdateError can be transient; anything else goes on to the run's boundary.
      if (!(error instanceof UpdateError) || !error.transient || n >= ctx.limits.retries) {
        throw error;
      }
      const asked = error.retryAfterMs;
      if (asked !== undefined && asked > ctx.limits.maxRetryAfterMs) throw error;
      const delay =
        asked ??
        backoffDelayMs(n, ctx.limits.retryBaseDelayMs, ctx.limits.retryMaxDelayMs, ctx.random);
      ctx.onRetry?.(error, n + 1, delay);
      await sleep(ctx.timers, delay, ctx.signal);
    }
  }
}
