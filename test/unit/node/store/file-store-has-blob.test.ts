/** FileStore.hasBlob: what the store answers for blobs absent, planted, promoted or changed. */
import { chmod, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileStore } from '#node/store/file-store.js';
import { sha256Hex } from '#test/fakes.js';
import { A, B, putBlob } from '#test/file-store-kit.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

describe('hasBlob absences (blob-listing.ts)', () => {
  it('a blob planted after the run listed blobs/ is absent until the next run, then verified', async () => {
    const dir = await dirs.make();
    const store = await FileStore.open(dir);
    await store.loadState(); // a run starts
    expect(await store.hasBlob(sha256Hex(A), A.length)).toBe(false); // lists blobs/
    await writeFile(join(dir, '.updater', 'blobs', sha256Hex(A)), A);
    // Fetched again in this run (its rename would replace the planted file).
    expect(await store.hasBlob(sha256Hex(A), A.length)).toBe(false);
    await store.loadState(); // the next run lists afresh; the planted bytes are re-hashed
    expect(await store.hasBlob(sha256Hex(A), A.length)).toBe(true);
  });

  it('a blob promoted after the listing is held, and one removed after it is absent', async () => {
    const dir = await dirs.make();
    const store = await FileStore.open(dir);
    await putBlob(store, B);
    await store.loadState();
    expect(await store.hasBlob(sha256Hex(A), A.length)).toBe(false); // lists blobs/: B only
    await putBlob(store, A);
    expect(await store.hasBlob(sha256Hex(A), A.length)).toBe(true);
    await rm(join(dir, '.updater', 'blobs', sha256Hex(B)));
    expect(await store.hasBlob(sha256Hex(B), B.length)).toBe(false);
  });
});

describe('blob cache re-verification', () => {
  it('does not reuse a blob whose content was modified after promotion', async () => {
    const dir = await dirs.make();
    const store = await FileStore.open(dir);
    await putBlob(store, A);
    expect(await store.hasBlob(sha256Hex(A), A.length)).toBe(true);
    const path = join(dir, '.updater', 'blobs', sha256Hex(A));
    await chmod(path, 0o644);
    await writeFile(path, 'ALPHA');
    expect(await store.hasBlob(sha256Hex(A), A.length)).toBe(false);
  });
});
