/** Reading the state file (src/node/store/state-file.ts, docs/UPDATER.md §2 and §7). */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readStateAndBytes } from '#node/store/state-file.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

describe('readStateAndBytes', () => {
  it('reads no state file as the empty state', async () => {
    const loaded = await readStateAndBytes(join(await dirs.make(), 'state.json'));
    expect(loaded.bytes).toBeUndefined();
  });

  it('says which file it could not read and why (IO with path and errno)', async () => {
    // A directory stands in for EACCES here: the tests may run as root, which reads mode 000.
    const path = join(await dirs.make(), 'state.json');
    await mkdir(path);
    const failure = readStateAndBytes(path);
    await expect(failure).rejects.toMatchObject({
      code: 'IO',
      details: { path, errno: 'EISDIR' },
    });
    await expect(failure).rejects.toThrow(`cannot read the state file ${path}: EISDIR`);
  });
});
