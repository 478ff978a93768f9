/**
 * A blob the core verified before handing it over (verified-blob.ts, docs/UPDATER.md §11 step
 * 4): written sealed and promoted like any small blob, the size checked, and not hashed again
 * (the caller's check is the one that decides), except where a partial left by an earlier run
 * is dropped through the partial path, which hashes.
 */
import { lstat, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UpdateError } from '#core/errors.js';
import { BLOB_MTIME_S } from '#node/blobs/intact-blob.js';
import { FileStore } from '#node/store/file-store.js';
import { sha256Hex, text } from '#test/fakes.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const CONTENT = text('a pack member, verified by its range fetch');
const SHA = sha256Hex(CONTENT);

async function codeOf(work: Promise<unknown>): Promise<string | undefined> {
  try {
    await work;
    return undefined;
  } catch (error) {
    return error instanceof UpdateError ? error.code : String(error);
  }
}

describe('FileStore.storeVerified', () => {
  it('writes the blob sealed and promotes it: held, read-only, sentinel mtime', async () => {
    const dir = await dirs.make();
    const store = await FileStore.open(dir);
    await store.storeVerified(SHA, CONTENT.length, CONTENT);
    await store.settleBlobs();
    const blob = join(dir, '.updater', 'blobs', SHA);
    expect(await readFile(blob)).toEqual(Buffer.from(CONTENT));
    const info = await lstat(blob);
    expect(info.mode & 0o777).toBe(0o444);
    expect(Math.round(info.mtimeMs / 1000)).toBe(BLOB_MTIME_S);
    expect(await store.hasBlob(SHA, CONTENT.length)).toBe(true);
    expect(await readdir(join(dir, '.updater', 'partial'))).toEqual([]);
  });

  it('does not hash the bytes again: the check is the caller’s, made before it hands them over', async () => {
    // Bytes under a digest they do not have: stored as told. Only code that hashed the very
    // bytes (the pack pull's range fetch) may call this; pack-pull.test.ts checks that it does.
    const dir = await dirs.make();
    const store = await FileStore.open(dir);
    const other = text('not the bytes of that digest, same length!');
    expect(other.length).toBe(CONTENT.length);
    await store.storeVerified(SHA, other.length, other);
    await store.settleBlobs();
    expect(await readFile(join(dir, '.updater', 'blobs', SHA))).toEqual(Buffer.from(other));
  });

  it('refuses bytes of another size than the signed one (SIZE_MISMATCH), writing nothing', async () => {
    const dir = await dirs.make();
    const store = await FileStore.open(dir);
    expect(await codeOf(store.storeVerified(SHA, CONTENT.length + 1, CONTENT))).toBe(
      'SIZE_MISMATCH',
    );
    await store.settleBlobs();
    expect(await readdir(join(dir, '.updater', 'blobs'))).toEqual([]);
    expect(await readdir(join(dir, '.updater', 'partial'))).toEqual([]);
  });

  it('drops a partial and its validator left by a killed run, hashing through the partial', async () => {
    const dir = await dirs.make();
    const partial = join(dir, '.updater', 'partial');
    await FileStore.open(dir);
    await writeFile(join(partial, `${SHA}.part`), CONTENT.subarray(0, 5));
    await writeFile(
      join(partial, `${SHA}.meta`),
      JSON.stringify({ validator: '"etag-of-a-killed-run"' }),
    );
    const store = await FileStore.open(dir);
    await store.storeVerified(SHA, CONTENT.length, CONTENT);
    await store.settleBlobs();
    expect(await readFile(join(dir, '.updater', 'blobs', SHA))).toEqual(Buffer.from(CONTENT));
    expect(await readdir(partial)).toEqual([]);
  });

  it('refuses wrong bytes where it goes through a left partial (that path hashes)', async () => {
    const dir = await dirs.make();
    const partial = join(dir, '.updater', 'partial');
    await FileStore.open(dir);
    await writeFile(join(partial, `${SHA}.part`), CONTENT.subarray(0, 5));
    const store = await FileStore.open(dir);
    const other = text('not the bytes of that digest, same length!');
    expect(await codeOf(store.storeVerified(SHA, other.length, other))).toBe('HASH_MISMATCH');
    await store.settleBlobs();
    expect(await readdir(join(dir, '.updater', 'blobs'))).toEqual([]);
  });
});
