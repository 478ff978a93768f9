import { describe, expect, it } from 'vitest';
import { UpdateError } from '#core/errors.js';
import { DEFAULT_LIMITS } from '#core/limits.js';
import { backoffDelayMs, sleep, withRetries } from '#core/transfer/retry.js';
import { parseRetryAfter } from '#core/transfer/retry-after.js';
import { immediateTimers } from '#test/fakes.js';

const limits = { ...DEFAULT_LIMITS, retries: 3 };

function ctx(delays: number[], signal = new AbortController().signal) {
  return {
    limits,
    timers: immediateTimers,
    random: () => 0.5,
    signal,
    onRetry: (_e: UpdateError, _n: number, ms: number) => delays.push(ms),
  };
}

describe('backoffDelayMs', () => {
  it('doubles per attempt with equal jitter and stops at the cap', () => {
    expect(backoffDelayMs(0, 100, 1000, () => 0)).toBe(50);
    expect(backoffDelayMs(0, 100, 1000, () => 0.999999)).toBe(100);
    expect(backoffDelayMs(2, 100, 1000, () => 0)).toBe(200);
    expect(backoffDelayMs(10, 100, 1000, () => 0)).toBe(500);
  });
});

describe('withRetries', () => {
  it('retries a transient failure and returns the later success', async () => {
    const delays: number[] = [];
    let calls = 0;
    const value = await withRetries(ctx(delays), () => {
      calls++;
      if (calls < 3) throw new UpdateError('NETWORK', 'reset', { transient: true });
      return Promise.resolve('ok');
    });
    expect(value).toBe('ok');
    expect(calls).toBe(3);
    expect(delays).toHaveLength(2);
  });

  it('never retries a refusal of signed data (HASH_MISMATCH)', async () => {
    let calls = 0;
    await expect(
      withRetries(ctx([]), () => {
        calls++;
        throw new UpdateError('HASH_MISMATCH', 'bad');
      }),
    ).rejects.toMatchObject({ code: 'HASH_MISMATCH' });
    expect(calls).toBe(1);
  });

  it('gives up after limits.retries extra attempts with the last error', async () => {
    let calls = 0;
    await expect(
      withRetries(ctx([]), () => {
        calls++;
        throw new UpdateError('STALLED', `stall ${calls}`, { transient: true });
      }),
    ).rejects.toMatchObject({ code: 'STALLED', message: 'stall 4' });
    expect(calls).toBe(4);
  });

  it('waits the server Retry-After instead of its own backoff', async () => {
    const delays: number[] = [];
    let calls = 0;
    await withRetries(ctx(delays), () => {
      if (++calls === 1) {
        throw new UpdateError('RATE_LIMITED', '429', { transient: true, retryAfterMs: 1234 });
      }
      return Promise.resolve();
    });
    expect(delays).toEqual([1234]);
  });

  it('fails at once when Retry-After exceeds maxRetryAfterMs (RATE_LIMITED)', async () => {
    let calls = 0;
    await expect(
      withRetries(ctx([]), () => {
        calls++;
        throw new UpdateError('RATE_LIMITED', '429', {
          transient: true,
          retryAfterMs: limits.maxRetryAfterMs + 1,
        });
      }),
    ).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect(calls).toBe(1);
  });

  it('reports ABORTED when the run was aborted', async () => {
    const controller = new AbortController();
    await expect(
      withRetries(ctx([], controller.signal), () => {
        controller.abort();
        throw new UpdateError('NETWORK', 'reset', { transient: true });
      }),
    ).rejects.toMatchObject({ code: 'ABORTED' });
  });
});

describe('sleep', () => {
  it('rejects with ABORTED when aborted before the delay ends', async () => {
    const controller = new AbortController();
    const timers = { setTimeout: () => 1, clearTimeout: () => undefined };
    const pending = sleep(timers, 10_000, controller.signal);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it('reads delay-seconds (RFC 9110 §10.2.3)', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
  });
  it('reads an HTTP-date relative to the clock', () => {
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
  });
  it('ignores garbage and negative values', () => {
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
  it('treats a past HTTP-date as zero', () => {
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
  });
});
