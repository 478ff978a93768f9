/**
 * FileStore.expectSet (docs/UPDATER.md §3, Staging during the pull): told the set before the
 * pull, the store links each blob into sets/<dir>.staging as it is promoted, records its facts
 * after that link, and the commit finishes that tree, linking only the blobs it already held.
 */
import { lstat, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EMPTY_STATE, type InstalledSet } from '#core/state.js';
import { blobFactsHold } from '#node/blobs/blob-facts.js';
import { FileStore } from '#node/store/file-store.js';
import { sha256Hex, text } from '#test/fakes.js';
import { A, B, putBlob } from '#test/file-store-kit.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const C = text('charlie, a third blob');

function setOf(version: string, files: Record<string, Uint8Array>): InstalledSet {
  const artifacts = Object.entries(files).map(([name, c]) => ({
    name,
    size: c.length,
    sha256: sha256Hex(c),
  }));
  return { setId: sha256Hex(text(version)), version, artifacts };
}

async function commit(store: FileStore, set: InstalledSet): Promise<void> {
  const envelope = text(`envelope ${set.version}`);
  await store.commitSet({ ...set, envelope }, { ...EMPTY_STATE, installed: set });
}

const meta = (dir: string, ...names: string[]): string => join(dir, '.updater', ...names);

describe('FileStore.expectSet: staging during the pull', () => {
  it('links each promoted blob under all its names before the commit, which finishes the tree', async () => {
    const dir = await dirs.make();
    const store = await FileStore.open(dir);
    await putBlob(store, A); // held before the pull: linked by the commit
    const set = setOf('1.0.0', { 'a.txt': A, 'b.txt': B, 'sub/b-again.txt': B, 'c.txt': C });
    await store.expectSet(set);
    await putBlob(store, B);
    await putBlob(store, C);
    const staging = meta(dir, 'sets', `${set.setId}.staging`);
    const blobB = meta(dir, 'blobs', sha256Hex(B));
    expect((await lstat(join(staging, 'b.txt'))).ino).toBe((await lstat(blobB)).ino);
    expect((await lstat(join(staging, 'sub', 'b-again.txt'))).ino).toBe((await lstat(blobB)).ino);
    expect((await readdir(staging)).sort()).toEqual(['b.txt', 'c.txt', 'sub']);
    // Recorded after the links (their ctime), not before: they hold without a re-hash.
    expect(await blobFactsHold(meta(dir, 'blobs'), sha256Hex(B))).toBe(true);
    expect(await blobFactsHold(meta(dir, 'blobs'), sha256Hex(C))).toBe(true);
    await commit(store, set);
    expect(await readdir(meta(dir, 'sets'))).toEqual([set.setId]);
    for (const name of ['a.txt', 'b.txt', 'sub/b-again.txt', 'c.txt']) {
      expect((await lstat(join(dir, 'current', name))).isFile()).toBe(true);
    }
    expect(await readFile(join(dir, 'current', 'a.txt'), 'utf8')).toBe('alpha');
    expect((await lstat(blobB)).nlink).toBe(3);
    for (const c of [A, B, C]) {
      expect(await blobFactsHold(meta(dir, 'blobs'), sha256Hex(c))).toBe(true);
    }
  });

  it('rebuilds a kept set that is not live from the tree staged during the pull', async () => {
    const dir = await dirs.make();
    const store = await FileStore.open(dir);
    const set = setOf('1.0.0', { 'a.txt': A });
    await mkdir(meta(dir, 'sets', set.setId));
    await writeFile(meta(dir, 'sets', set.setId, 'stray'), 'x');
    await store.expectSet(set);
    await putBlob(store, A);
    await commit(store, set);
    expect(await readdir(meta(dir, 'sets', set.setId))).toEqual(['a.txt']);
    expect(await readdir(meta(dir, 'sets'))).toEqual([set.setId]);
  });

  it('stages nothing for the live set, and a later pull drops the tree of one never committed', async () => {
    const dir = await dirs.make();
    const store = await FileStore.open(dir);
    await putBlob(store, A);
    const one = setOf('1.0.0', { 'a.txt': A });
    await commit(store, one);
    await store.expectSet(one); // a repair of the live set gets a fresh dir; this one is live
    expect(await readdir(meta(dir, 'sets'))).toEqual([one.setId]);
    const two = setOf('2.0.0', { 'b.txt': B });
    await store.expectSet(two);
    await putBlob(store, B); // the pull fails after this: no commit
    const three = setOf('3.0.0', { 'c.txt': C });
    await store.expectSet(three);
    expect((await readdir(meta(dir, 'sets'))).sort()).toEqual(
      [one.setId, `${three.setId}.staging`].sort(),
    );
    await putBlob(store, C);
    await commit(store, three);
    expect(await readFile(join(dir, 'current', 'c.txt'), 'utf8')).toBe('charlie, a third blob');
  });

  it('after the commit, promotions no longer touch the committed tree', async () => {
    const dir = await dirs.make();
    const store = await FileStore.open(dir);
    const set = setOf('1.0.0', { 'a.txt': A, 'b.txt': B });
    await putBlob(store, B);
    await store.expectSet(set);
    await putBlob(store, A);
    await commit(store, set);
    await putBlob(store, C);
    expect((await readdir(join(dir, 'current'))).sort()).toEqual(['a.txt', 'b.txt']);
    expect(await readdir(meta(dir, 'sets'))).toEqual([set.setId]);
  });
});
