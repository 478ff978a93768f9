import { describe, expect, it } from 'vitest';
import { createRunQueue } from '#core/schedule/run-queue.js';

/** A promise settled by hand. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('run queue', () => {
  it('joins a call of the same kind to the run in flight', async () => {
    const queue = createRunQueue(new AbortController().signal);
    const gate = deferred<number>();
    let runs = 0;
    const body = () => {
      runs++;
      return gate.promise;
    };
    const first = queue.run('update', body);
    const second = queue.run('update', body);
    expect(queue.running).toBe(true);
    gate.resolve(7);
    expect(await Promise.all([first, second])).toEqual([7, 7]);
    expect(runs).toBe(1);
    expect(queue.running).toBe(false);
  });

  it('runs different kinds one after another, never at once', async () => {
    const queue = createRunQueue(new AbortController().signal);
    const order: string[] = [];
    const gate = deferred<undefined>();
    const a = queue.run('update', async () => {
      order.push('update start');
      await gate.promise;
      order.push('update end');
    });
    const b = queue.run('verify', () => {
      order.push('verify');
      return Promise.resolve();
    });
    gate.resolve(undefined);
    await Promise.all([a, b]);
    expect(order).toEqual(['update start', 'update end', 'verify']);
  });

  it('never joins two rollbacks: each is its own run', async () => {
    const queue = createRunQueue(new AbortController().signal);
    let runs = 0;
    await Promise.all([
      queue.run('rollback', () => Promise.resolve(runs++)),
      queue.run('rollback', () => Promise.resolve(runs++)),
    ]);
    expect(runs).toBe(2);
  });

  it('refuses to start a run once the signal is aborted (ABORTED)', async () => {
    const controller = new AbortController();
    const queue = createRunQueue(controller.signal);
    controller.abort();
    await expect(queue.run('check', () => Promise.resolve(1))).rejects.toMatchObject({
      code: 'ABORTED',
    });
    await queue.drained();
  });
});
