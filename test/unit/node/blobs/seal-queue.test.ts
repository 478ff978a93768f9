import { describe, expect, it } from 'vitest';
import { SealQueue } from '#node/blobs/seal-queue.js';

/** A job that finishes when `release` is called (or fails with `error`). */
function gate(): { job: () => Promise<void>; release: (error?: Error) => void; started: boolean } {
  let resolve: (() => void) | undefined;
  let reject: ((error: Error) => void) | undefined;
  const g = {
    started: false,
    job: () => {
      g.started = true;
      return new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
    },
    release: (error?: Error) => (error === undefined ? resolve?.() : reject?.(error)),
  };
  return g;
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('SealQueue', () => {
  it('runs at most `window` jobs at once and starts the next when one finishes', async () => {
    const queue = new SealQueue(2);
    const [a, b, c] = [gate(), gate(), gate()];
    await queue.add(a.job);
    await queue.add(b.job);
    const third = queue.add(c.job);
    await tick();
    expect(c.started).toBe(false);
    expect(queue.pending).toBe(2);
    b.release();
    await third;
    expect(c.started).toBe(true);
    a.release();
    c.release();
    await queue.settle();
    expect(queue.pending).toBe(0);
  });

  it('settle waits for every job and reports the first failure once', async () => {
    const queue = new SealQueue(4);
    const [a, b] = [gate(), gate()];
    await queue.add(a.job);
    await queue.add(b.job);
    let settled = false;
    const done = queue.settle().finally(() => {
      settled = true;
    });
    a.release(new Error('fsync failed'));
    await tick();
    expect(settled).toBe(false); // b still runs
    b.release();
    await expect(done).rejects.toThrow('fsync failed');
    await expect(queue.settle()).resolves.toBeUndefined();
  });

  it('a later add still starts its job, then reports the earlier failure', async () => {
    const queue = new SealQueue(4);
    const a = gate();
    await queue.add(a.job);
    a.release(new Error('rename refused'));
    await tick();
    const b = gate();
    await expect(queue.add(b.job)).rejects.toThrow('rename refused');
    expect(b.started).toBe(true);
    b.release();
    await queue.idle();
    expect(queue.pending).toBe(0);
  });
});
