/**
 * The nginx helper never fails with an empty error: when nginx does not come up, the error
 * names the binary, how the process ended and what it wrote (or that it wrote nothing).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startNginx } from '#test/nginx.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'qa-nginx-helper-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('startNginx when nginx does not come up', () => {
  it('names a binary that exits at once with nothing logged', async () => {
    await expect(startNginx(root, { bin: '/bin/false' })).rejects.toThrow(
      'nginx did not start (/bin/false exited with code 1); its error log is empty',
    );
  });

  it('names a binary that cannot be run at all', async () => {
    const bin = join(root, 'no-such-nginx');
    await expect(startNginx(root, { bin })).rejects.toThrow(
      new RegExp(`could not run ${bin}: spawn ${bin} ENOENT`),
    );
  });

  it('includes what nginx printed on stderr', async () => {
    const bin = join(root, 'noisy-nginx');
    await writeFile(bin, '#!/bin/sh\necho "nginx: [emerg] bind() failed" >&2\nexit 1\n', {
      mode: 0o755,
    });
    await expect(startNginx(root, { bin })).rejects.toThrow(
      'exited with code 1); stderr: nginx: [emerg] bind() failed; its error log is empty',
    );
  });
});
