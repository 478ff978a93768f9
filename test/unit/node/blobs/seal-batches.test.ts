import { describe, expect, it } from 'vitest';
import { SealBatches } from '#node/blobs/seal-batches.js';
import type { SealJob } from '#node/blobs/whole-blob.js';

/** A job that logs what the batch did to it. */
function job(name: string, log: string[], bytes = 1): SealJob {
  return {
    bytes,
    fsync: () => {
      log.push(`fsync ${name}`);
      return Promise.resolve();
    },
    promote: () => {
      log.push(`promote ${name}`);
      return Promise.resolve();
    },
    abandon: () => log.push(`abandon ${name}`),
  };
}

/** A sync that finishes when `release` is called, logging its start. */
function gatedSync(log: string[]): {
  sync: () => Promise<boolean>;
  release: (ok?: boolean | Error) => void;
} {
  const waiting: ((ok: boolean | Error) => void)[] = [];
  return {
    sync: () => {
      log.push('sync');
      return new Promise<boolean>((resolve, reject) =>
        waiting.push((ok) => (ok instanceof Error ? reject(ok) : resolve(ok))),
      );
    },
    release: (ok = true) => waiting.shift()?.(ok),
  };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('SealBatches', () => {
  it('syncs once per batch, then promotes its blobs in the order they came', async () => {
    const log: string[] = [];
    const synced: number[] = [];
    const batches = new SealBatches(
      { maxCount: 3, maxBytes: 1000 },
      () => {
        log.push('sync');
        return Promise.resolve(true);
      },
      () => synced.push(log.length),
    );
    for (const name of ['a', 'b', 'c', 'd']) await batches.add(job(name, log));
    await tick();
    expect(log).toEqual(['sync', 'promote a', 'promote b', 'promote c']);
    expect(batches.pending).toBe(1); // d waits in the open batch
    await batches.settle();
    expect(log).toEqual(['sync', 'promote a', 'promote b', 'promote c', 'sync', 'promote d']);
    expect(synced).toEqual([1, 5]); // after each sync, before its first rename
  });

  it('closes a batch by bytes as well as by count', async () => {
    const log: string[] = [];
    const batches = new SealBatches({ maxCount: 100, maxBytes: 10 }, () => {
      log.push('sync');
      return Promise.resolve(true);
    });
    await batches.add(job('a', log, 6));
    expect(log).toEqual([]);
    await batches.add(job('b', log, 6));
    await tick();
    expect(log).toEqual(['sync', 'promote a', 'promote b']);
  });

  it('holds at most one batch in flight: a full batch waits for the one before', async () => {
    const log: string[] = [];
    const gate = gatedSync(log);
    const batches = new SealBatches({ maxCount: 1, maxBytes: 1000 }, gate.sync);
    await batches.add(job('a', log)); // batch 1 starts syncing
    let added = false;
    const second = batches.add(job('b', log)).then(() => (added = true));
    await tick();
    expect(added).toBe(false);
    expect(log).toEqual(['sync']);
    gate.release();
    await tick();
    await tick();
    expect(log).toEqual(['sync', 'promote a', 'sync']);
    await second;
    gate.release();
    await batches.settle();
    expect(log).toEqual(['sync', 'promote a', 'sync', 'promote b']);
  });

  it('fails a batch closed: none promoted, each abandoned, the failure kept until settle', async () => {
    const log: string[] = [];
    const gate = gatedSync(log);
    const batches = new SealBatches({ maxCount: 2, maxBytes: 1000 }, gate.sync);
    await batches.add(job('a', log));
    await batches.add(job('b', log));
    gate.release(new Error('sync -f failed'));
    await tick();
    expect(log).toEqual(['sync', 'abandon a', 'abandon b']);
    // A later add still takes its job, then reports the earlier failure.
    await expect(batches.add(job('c', log))).rejects.toThrow('sync -f failed');
    const settled = batches.settle();
    gate.release();
    await expect(settled).rejects.toThrow('sync -f failed');
    expect(log).toEqual(['sync', 'abandon a', 'abandon b', 'sync', 'promote c']);
    await expect(batches.settle()).resolves.toBeUndefined();
  });

  it('fsyncs each blob of the batch where no syncfs can run', async () => {
    const log: string[] = [];
    const batches = new SealBatches({ maxCount: 2, maxBytes: 1000 }, () => Promise.resolve(false));
    await batches.add(job('a', log));
    await batches.add(job('b', log));
    await batches.settle();
    expect(log).toEqual(['fsync a', 'fsync b', 'promote a', 'promote b']);
  });

  it('abandons the whole batch if one fsync of the fallback fails, after all settled', async () => {
    const log: string[] = [];
    const batches = new SealBatches({ maxCount: 2, maxBytes: 1000 }, () => Promise.resolve(false));
    const bad = { ...job('a', log), fsync: () => Promise.reject(new Error('EIO')) };
    await batches.add(bad);
    await batches.add(job('b', log));
    await expect(batches.settle()).rejects.toThrow('EIO');
    expect(log).toEqual(['fsync b', 'abandon a', 'abandon b']);
  });

  it('idle closes the open batch and waits for it, throwing nothing', async () => {
    const log: string[] = [];
    const batches = new SealBatches({ maxCount: 10, maxBytes: 1000 }, () =>
      Promise.reject(new Error('EIO')),
    );
    await batches.add(job('a', log));
    await batches.idle();
    expect(batches.pending).toBe(0);
    expect(log).toEqual(['abandon a']);
    await expect(batches.settle()).rejects.toThrow('EIO');
  });

  it('keeps promoting the rest of a batch after one promotion fails, and reports it', async () => {
    const log: string[] = [];
    const batches = new SealBatches({ maxCount: 2, maxBytes: 1000 }, () => Promise.resolve(true));
    const bad = { ...job('a', log), promote: () => Promise.reject(new Error('replaced')) };
    await batches.add(bad);
    await batches.add(job('b', log));
    await expect(batches.settle()).rejects.toThrow('replaced');
    expect(log).toEqual(['promote b']);
  });

  it('closes a batch by age once it holds enough blobs, never waiting for one syncing', async () => {
    const log: string[] = [];
    let now = 0;
    const gated = gatedSync(log);
    const limits = { maxCount: 100, maxBytes: 1000, maxAgeMs: 50, minAgedCount: 2 };
    const batches = new SealBatches(limits, gated.sync, undefined, () => now);
    await batches.add(job('a', log));
    now = 60; // old enough, but one blob is under minAgedCount
    await batches.add(job('b', log)); // two, 60 ms since a: closes
    expect(log).toEqual(['sync']);
    await batches.add(job('c', log)); // a new batch, its age counted from c
    now = 200;
    // Old and big enough, but a batch is syncing: d joins the open one, add does not wait.
    await batches.add(job('d', log));
    expect(log).toEqual(['sync']);
    expect(batches.pending).toBe(3);
    gated.release();
    await tick();
    expect(log).toEqual(['sync', 'promote a', 'promote b']);
    await batches.add(job('e', log)); // none syncing now: c, d, e close together
    expect(log).toEqual(['sync', 'promote a', 'promote b', 'sync']);
    gated.release();
    await batches.settle();
    expect(log).toEqual([
      ...['sync', 'promote a', 'promote b'],
      ...['sync', 'promote c', 'promote d', 'promote e'],
    ]);
  });

  it('without an age limit, a batch closes by count and bytes only', async () => {
    const log: string[] = [];
    let now = 0;
    const gated = gatedSync(log);
    const batches = new SealBatches(
      { maxCount: 100, maxBytes: 1000 },
      gated.sync,
      undefined,
      () => now,
    );
    await batches.add(job('a', log));
    now = 1e6;
    await batches.add(job('b', log));
    expect(log).toEqual([]);
    const settled = batches.settle();
    gated.release();
    await settled;
    expect(log).toEqual(['sync', 'promote a', 'promote b']);
  });
});
