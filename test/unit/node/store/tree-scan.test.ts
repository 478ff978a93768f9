import { mkdir, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BLOB_MTIME_S } from '#node/blobs/intact-blob.js';
import { quickCheck, scanTree } from '#node/store/tree-scan.js';
import { sha256Hex, text } from '#test/fakes.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

describe('scanTree', () => {
  it('lists nested files as POSIX names with size and SHA-256', async () => {
    const root = await dirs.make();
    await mkdir(join(root, 'a', 'b'), { recursive: true });
    await writeFile(join(root, 'a', 'b', 'c.txt'), 'see');
    await writeFile(join(root, 'top'), '');
    const files = (await scanTree(root)).sort((x, y) => x.name.localeCompare(y.name));
    expect(files).toEqual([
      { name: 'a/b/c.txt', size: 3, sha256: sha256Hex(text('see')) },
      { name: 'top', size: 0, sha256: sha256Hex(text('')) },
    ]);
  });

  it('reports a symlink inside the tree with size -1 (always drift)', async () => {
    const root = await dirs.make();
    await symlink('/etc/hostname', join(root, 'link'));
    expect(await scanTree(root)).toEqual([{ name: 'link', size: -1, sha256: '' }]);
  });

  it('returns nothing for a missing root', async () => {
    expect(await scanTree(join(await dirs.make(), 'nope'))).toEqual([]);
  });
});

describe('quickCheck', () => {
  /** `count` intact installed files (4 bytes, the blob sentinel mtime) and their records. */
  async function installed(count: number) {
    const root = await dirs.make();
    await mkdir(join(root, 'd'));
    const artifacts = [];
    for (let i = 0; i < count; i++) {
      const name = i % 2 === 0 ? `f${i}` : `d/f${i}`;
      await writeFile(join(root, name), 'abcd');
      await utimes(join(root, name), BLOB_MTIME_S, BLOB_MTIME_S);
      artifacts.push({ name, size: 4, sha256: 'a'.repeat(64) });
    }
    return { root, artifacts };
  }

  it('finds nothing wrong with an intact set', async () => {
    const { root, artifacts } = await installed(5);
    expect(await quickCheck(root, artifacts)).toEqual([]);
  });

  it('names missing, resized, rewritten and replaced files, in manifest order', async () => {
    const { root, artifacts } = await installed(6);
    await writeFile(join(root, 'f0'), 'abcde'); // size, and a fresh mtime
    await utimes(join(root, 'f0'), BLOB_MTIME_S, BLOB_MTIME_S);
    await writeFile(join(root, 'd/f1'), 'wxyz'); // same size, written since install
    await mkdir(join(root, 'f2x'));
    const extra = [...artifacts, { name: 'gone', size: 4, sha256: 'a'.repeat(64) }];
    extra.push({ name: 'f2x', size: 4, sha256: 'a'.repeat(64) }); // a directory
    expect(await quickCheck(root, extra)).toEqual(['f0', 'd/f1', 'gone', 'f2x']);
  });

  it('checks every file past the first batch of synchronous lstats', async () => {
    const { root, artifacts } = await installed(2100);
    await writeFile(join(root, 'f2098'), 'late');
    expect(await quickCheck(root, artifacts)).toEqual(['f2098']);
  });
});
