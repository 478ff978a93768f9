/**
 * Files the operator names (server/src/platform/regular-file.ts): a regular file is read, anything else is
 * refused at once. A FIFO is tried in test/integration/server-cli.test.ts, on a child: the old
 * blocking open would hang this worker's pool thread for good.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotRegularFileError, readRegularFile } from '#server/platform/regular-file.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'regular-file-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readRegularFile', () => {
  it('reads a regular file as UTF-8', async () => {
    const path = join(dir, 'config.json');
    await writeFile(path, '{"é":1}');
    expect(await readRegularFile(path)).toBe('{"é":1}');
  });

  it('refuses a directory with ENOTREG, naming it', async () => {
    const error: unknown = await readRegularFile(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotRegularFileError);
    expect(error).toMatchObject({ code: 'ENOTREG', message: `${dir} is not a regular file` });
  });

  it("passes a missing file's ENOENT through (node-key.ts then makes a new key)", async () => {
    await expect(readRegularFile(join(dir, 'absent'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
