import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scanTree } from '../../../src/node/tree-scan.js';
import { sha256Hex, text } from '../core/fakes.js';
import { tempDirs } from './temp-dir.js';

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
