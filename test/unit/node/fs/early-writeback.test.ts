/**
 * Early data syncs of a large partial (src/node/fs/early-writeback.ts, docs/UPDATER.md §3,
 * Durability): one sync per interval appended, never two at once, and a failed one is never
 * lost: `settle` (before the final fsync) throws it however many syncs succeeded since.
 */
import { describe, expect, it } from 'vitest';
import { EarlyWriteback } from '#node/fs/early-writeback.js';

/** A sync the test ends by hand: `syncs` counts the calls, `end(error?)` settles the oldest. */
function manualSync() {
  const waiting: { resolve(): void; reject(error: Error): void }[] = [];
  let syncs = 0;
  return {
    sync: (): Promise<void> => {
      syncs++;
      return new Promise<void>((resolve, reject) => waiting.push({ resolve, reject }));
    },
    get syncs() {
      return syncs;
    },
    end: async (error?: Error): Promise<void> => {
      const next = waiting.shift();
      if (error === undefined) next?.resolve();
      else next?.reject(error);
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

describe('early writeback', () => {
  it('starts one sync per interval appended, and none while one runs', async () => {
    const s = manualSync();
    const writeback = new EarlyWriteback(s.sync, 100);
    writeback.wrote(60);
    expect(s.syncs).toBe(0);
    writeback.wrote(40);
    expect(s.syncs).toBe(1);
    // Another interval while the first runs: no second sync at once.
    writeback.wrote(150);
    expect(s.syncs).toBe(1);
    await s.end();
    // What came while it ran counts towards the next: the next append starts it.
    writeback.wrote(1);
    expect(s.syncs).toBe(2);
    await s.end();
    // The count starts afresh with each sync: the next one needs a whole interval.
    writeback.wrote(99);
    expect(s.syncs).toBe(2);
    writeback.wrote(1);
    expect(s.syncs).toBe(3);
    await s.end();
    await writeback.settle();
  });

  it('waits for the sync in progress before it lets the descriptor go', async () => {
    const s = manualSync();
    const writeback = new EarlyWriteback(s.sync, 10);
    writeback.wrote(10);
    let idle = false;
    const waiting = writeback.idle().then(() => {
      idle = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(idle).toBe(false);
    await s.end();
    await waiting;
    expect(idle).toBe(true);
  });

  it('keeps the first failure for settle, even after later syncs succeeded', async () => {
    const s = manualSync();
    const writeback = new EarlyWriteback(s.sync, 10);
    const eio = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    writeback.wrote(10);
    await s.end(eio);
    writeback.wrote(10);
    expect(s.syncs).toBe(2);
    await s.end();
    // idle never throws (a close after a failure still closes); settle does.
    await writeback.idle();
    await expect(writeback.settle()).rejects.toBe(eio);
    await expect(writeback.settle()).rejects.toBe(eio);
  });

  it('settles at once when no sync ever started', async () => {
    const s = manualSync();
    const writeback = new EarlyWriteback(s.sync, 1000);
    writeback.wrote(999);
    await writeback.settle();
    expect(s.syncs).toBe(0);
  });
});
