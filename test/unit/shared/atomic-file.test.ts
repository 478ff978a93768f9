import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commitTemp, writeFileAtomic, writeSyncedTemp } from '#shared/atomic-file.js';
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

describe('writeSyncedTemp', () => {
  it('writes a hidden temporary file beside the target, which keeps its bytes until commitTemp', async () => {
    const dir = await dirs.make();
    const path = join(dir, 'journal.json');
    await writeFileAtomic(path, 'old');
    const temp = await writeSyncedTemp(path, 'new');
    expect(temp).toMatch(/\/\.journal\.json\.[0-9a-f]{12}\.tmp$/);
    expect(await readFile(path, 'utf8')).toBe('old');
    expect(await readFile(temp, 'utf8')).toBe('new');
    await commitTemp(temp, path);
    expect(await readFile(path, 'utf8')).toBe('new');
    expect(await readdir(dir)).toEqual(['journal.json']);
  });
});
