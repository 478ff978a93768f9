import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UpdateError } from '#core/errors.js';
import { io } from '#node/fs/fs-errors.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

describe('io', () => {
  it('wraps a file-system failure as IO naming the path and errno', async () => {
    const missing = join(await dirs.make(), 'state.json');
    const error = await io('read the state file', () => readFile(missing)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpdateError);
    expect(error).toMatchObject({
      code: 'IO',
      details: { path: missing, errno: 'ENOENT', syscall: 'open' },
    });
    expect((error as Error).message).toMatch(/^read the state file: ENOENT/);
  });

  it('passes an UpdateError through untouched', async () => {
    const original = new UpdateError('LOCKED', 'held');
    await expect(io('x', () => Promise.reject(original))).rejects.toBe(original);
  });
});
