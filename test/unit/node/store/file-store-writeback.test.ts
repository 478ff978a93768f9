/**
 * FileStore hands its partials the early-writeback interval (src/node/fs/early-writeback.ts): the
 * CLI's UPDATER_TEST_WRITEBACK_BYTES reaches them this way, so the kill -9 suite's artifacts
 * have early syncs in flight; by default (64 MiB) a 1 MiB download makes none.
 */
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FileStore } from '#node/store/file-store.js';
import { FLUSH_BYTES } from '#node/blobs/partial-blob.js';
import { sha256Hex } from '#test/fakes.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());
afterEach(() => vi.restoreAllMocks());

const CONTENT = new Uint8Array(4 * FLUSH_BYTES).map((_, i) => (i * 13) % 251);

/** Downloads CONTENT through a partial of `store` and counts the datasync calls on the way. */
async function datasyncsOfOnePull(dir: string, store: FileStore): Promise<number> {
  const probe = await open(join(dir, 'probe'), 'w');
  await probe.close();
  const datasync = vi.spyOn(Object.getPrototypeOf(probe) as typeof probe, 'datasync');
  const partial = await store.openPartial(sha256Hex(CONTENT), CONTENT.length);
  for (let at = 0; at < CONTENT.length; at += FLUSH_BYTES) {
    await partial.write(CONTENT.subarray(at, at + FLUSH_BYTES));
  }
  await partial.complete();
  await store.settleBlobs();
  expect(await store.hasBlob(sha256Hex(CONTENT), CONTENT.length)).toBe(true);
  return datasync.mock.calls.length;
}

describe('FileStore early writeback', () => {
  it('syncs a partial early at the interval it was given', async () => {
    const dir = await dirs.make();
    const store = await FileStore.open(dir, { writebackEveryBytes: FLUSH_BYTES });
    expect(await datasyncsOfOnePull(dir, store)).toBeGreaterThanOrEqual(1);
  });

  it('makes no early sync below the default interval', async () => {
    const dir = await dirs.make();
    const store = await FileStore.open(dir);
    expect(await datasyncsOfOnePull(dir, store)).toBe(0);
  });
});
