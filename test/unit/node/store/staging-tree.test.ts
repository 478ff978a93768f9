/**
 * The tree a set is staged in while it is pulled (src/node/store/staging-tree.ts,
 * docs/UPDATER.md §3, Staging during the pull): each arriving blob is linked under every name of
 * it, all or none; a dropped blob loses its names; a name that cannot be removed spoils the tree.
 */
import { lstat, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { InstalledArtifact } from '#core/state.js';
import { StagingTree } from '#node/store/staging-tree.js';
import { sha256Hex, text } from '#test/fakes.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const A = text('alpha');
const B = text('bravo bravo');
const SHA_A = sha256Hex(A);
const SHA_B = sha256Hex(B);

/** sets/ and blobs/ with A and B as plain files; A named twice in the set, once deep. */
async function layout(): Promise<{ sets: string; blobs: string; artifacts: InstalledArtifact[] }> {
  const root = await dirs.make();
  const sets = join(root, 'sets');
  const blobs = join(root, 'blobs');
  await mkdir(sets);
  await mkdir(blobs);
  await writeFile(join(blobs, SHA_A), A);
  await writeFile(join(blobs, SHA_B), B);
  const artifacts = [
    { name: 'a.txt', size: A.length, sha256: SHA_A },
    { name: 'deep/er/copy-of-a.txt', size: A.length, sha256: SHA_A },
    { name: 'b.txt', size: B.length, sha256: SHA_B },
  ];
  return { sets, blobs, artifacts };
}

describe('StagingTree', () => {
  it('links an arrived blob under every name of it, sharing its inode', async () => {
    const { sets, blobs, artifacts } = await layout();
    const tree = await StagingTree.create(sets, 'set1', artifacts);
    expect(tree.root).toBe(join(sets, 'set1.staging'));
    tree.arrived(SHA_A, join(blobs, SHA_A));
    tree.arrived('f'.repeat(64), join(blobs, SHA_B)); // not in the set: ignored
    const ino = (await lstat(join(blobs, SHA_A))).ino;
    expect((await lstat(join(tree.root, 'a.txt'))).ino).toBe(ino);
    expect((await lstat(join(tree.root, 'deep', 'er', 'copy-of-a.txt'))).ino).toBe(ino);
    expect((await readdir(tree.root)).sort()).toEqual(['a.txt', 'deep']);
    expect(tree.holds(SHA_A)).toBe(true);
    expect(tree.holds(SHA_B)).toBe(false);
    expect(tree.dirs).toContain(join(tree.root, 'deep', 'er'));
    expect(tree.usableFor('set1')).toBe(true);
    expect(tree.usableFor('set2')).toBe(false);
  });

  it('removes the names of a dropped blob', async () => {
    const { sets, blobs, artifacts } = await layout();
    const tree = await StagingTree.create(sets, 'set1', artifacts);
    tree.arrived(SHA_A, join(blobs, SHA_A));
    tree.dropped(SHA_A);
    expect(tree.holds(SHA_A)).toBe(false);
    await expect(lstat(join(tree.root, 'a.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(lstat(join(tree.root, 'deep', 'er', 'copy-of-a.txt'))).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });

  it('follows a blob promoted again to its new inode', async () => {
    const { sets, blobs, artifacts } = await layout();
    const tree = await StagingTree.create(sets, 'set1', artifacts);
    tree.arrived(SHA_B, join(blobs, SHA_B));
    const again = join(blobs, `${SHA_B}.new`);
    await writeFile(again, B);
    tree.arrived(SHA_B, again);
    expect((await lstat(join(tree.root, 'b.txt'))).ino).toBe((await lstat(again)).ino);
    expect(tree.holds(SHA_B)).toBe(true);
  });

  it('links none of a blob it cannot link, and no later blob: the commit links them', async () => {
    const { sets, blobs, artifacts } = await layout();
    const tree = await StagingTree.create(sets, 'set1', artifacts);
    // The second name's parent is a file: the first link is made, then undone.
    await writeFile(join(tree.root, 'deep'), 'in the way');
    tree.arrived(SHA_A, join(blobs, SHA_A));
    expect(tree.holds(SHA_A)).toBe(false);
    await expect(lstat(join(tree.root, 'a.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(tree.usableFor('set1')).toBe(true);
    // A file system that refused one link refuses the next: no link per blob is tried.
    tree.arrived(SHA_B, join(blobs, SHA_B));
    expect(tree.holds(SHA_B)).toBe(false);
    expect((await readdir(tree.root)).sort()).toEqual(['deep']);
  });

  it('is spoiled when a name of a blob it could not link cannot be removed', async () => {
    const { sets, blobs, artifacts } = await layout();
    const tree = await StagingTree.create(sets, 'set1', artifacts);
    // b.txt is a directory: its link fails (EEXIST) and rmSync will not remove a directory.
    await mkdir(join(tree.root, 'b.txt'));
    tree.arrived(SHA_B, join(blobs, SHA_B));
    expect(tree.holds(SHA_B)).toBe(false);
    expect(tree.usableFor('set1')).toBe(false);
  });

  it('starts from an empty tree, whatever a failed run left under its name', async () => {
    const { sets, artifacts } = await layout();
    await mkdir(join(sets, 'set1.staging', 'left'), { recursive: true });
    const tree = await StagingTree.create(sets, 'set1', artifacts);
    expect(await readdir(tree.root)).toEqual([]);
  });
});
