/**
 * The small-blob write when the process runs out of descriptors (whole-blob.ts `relieve`): a
 * real process under a low `ulimit -n` (test/helpers/emfile-store-child.ts), whose syncfs batch
 * (256 blobs, each holding its descriptor until its rename) holds more than it may open.
 */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SEAL_BATCH } from '../../../src/node/file-store.js';
import { tempDirs } from './temp-dir.js';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..', '..');
const dirs = tempDirs();
afterEach(() => dirs.cleanup());

/** Runs the child under `ulimit -n limit`; resolves its JSON, or rejects with its stderr. */
function pullUnder(limit: number, dir: string, count: number): Promise<unknown> {
  const script = join(REPO_ROOT, 'test', 'helpers', 'emfile-store-child.ts');
  const command = `ulimit -n ${limit} && exec "$0" --import tsx "$1" "$2" "$3"`;
  const args = ['-c', command, process.execPath, script, dir, String(count)];
  return new Promise((resolvePromise, reject) => {
    execFile('bash', args, { cwd: REPO_ROOT, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error === null) resolvePromise(JSON.parse(stdout));
      else reject(new Error(`child failed: ${stderr.slice(-800)}`));
    });
  });
}

describe.runIf(process.platform === 'linux')('out of descriptors with a syncfs batch', () => {
  it('promotes the held batch and creates again: every blob arrives', async () => {
    // 200 descriptors: the batch's 256 cannot all be held, so the relief must run.
    expect(SEAL_BATCH.maxCount).toBeGreaterThan(200);
    const dir = await dirs.make();
    const result = await pullUnder(200, dir, 600);
    // More batches than 600 / 256 rounds up to: at least one was closed early by the relief.
    expect(result).toMatchObject({ blobs: 600 });
    expect((result as { batches: number }).batches).toBeGreaterThan(3);
  }, 90_000);
});
