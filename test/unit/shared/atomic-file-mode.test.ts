import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomic, writeJsonAtomic } from '#shared/atomic-file.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'atomic-file-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writeFileAtomic', () => {
  it('replaces the content and leaves only the target in the directory', async () => {
    const target = join(dir, 'a.json');
    await writeFileAtomic(target, 'one');
    await writeFileAtomic(target, 'two');
    expect(await readFile(target, 'utf8')).toBe('two');
    expect(await readdir(dir)).toEqual(['a.json']);
  });

  it('applies the requested mode (0600 for secrets)', async () => {
    const target = join(dir, 'secret.json');
    await writeJsonAtomic(target, { a: 1 }, 0o600);
    expect((await stat(target)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(target, 'utf8'))).toEqual({ a: 1 });
  });

  it('fails in a missing directory without creating anything', async () => {
    await expect(writeFileAtomic(join(dir, 'no', 'a'), 'x')).rejects.toThrow();
    expect(await readdir(dir)).toEqual([]);
  });
});
