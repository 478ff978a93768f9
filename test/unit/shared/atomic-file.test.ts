import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '#shared/atomic-file.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

describe('writeFileAtomic', () => {
  it('replaces the file with the new bytes and leaves no temporary file', async () => {
    const dir = await dirs.make();
    const path = join(dir, 'state.json');
    await writeFileAtomic(path, new TextEncoder().encode('one'));
    await writeFileAtomic(path, new TextEncoder().encode('two'));
    expect(await readFile(path, 'utf8')).toBe('two');
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('fails cleanly when the directory does not exist, leaving nothing behind', async () => {
    const dir = await dirs.make();
    await expect(writeFileAtomic(join(dir, 'missing', 'x'), new Uint8Array(1))).rejects.toThrow();
    expect(await readdir(dir)).toEqual([]);
  });
});
