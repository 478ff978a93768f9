/**
 * The whole small-blob write (whole-blob.ts): the exclusive create on either side of
 * `CREATE_OFF_LOOP_BYTES` (main thread below, libuv's pool from it on), with a file or a link
 * planted at the partial's name; and the write when the process runs out of descriptors
 * (`relieve`): a real process under a low `ulimit -n` (test/helpers/emfile-store-child.ts),
 * whose syncfs batch (256 blobs, each holding its descriptor until its rename) holds more than
 * it may open.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstat, mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SEAL_BATCH } from '#node/blobs/blob-sealer.js';
import { BLOB_MTIME_S } from '#node/blobs/intact-blob.js';
import { CREATE_OFF_LOOP_BYTES, promoteWholeBuffers, sealAlone } from '#node/blobs/whole-blob.js';
import { tempDirs } from '#test/temp-dir.js';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..', '..', '..');
const dirs = tempDirs();
afterEach(() => dirs.cleanup());

/** Runs the child under `ulimit -n limit`; resolves its JSON, or rejects with its stderr. */
function pullUnder(limit: number, dir: string, count: number, size = 0): Promise<unknown> {
  const script = join(REPO_ROOT, 'test', 'helpers', 'emfile-store-child.ts');
  const command = `ulimit -n ${limit} && exec "$0" --import tsx "$1" "$2" "$3" "$4"`;
  const args = ['-c', command, process.execPath, script, dir, String(count), String(size)];
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

  it('relieves a create on the thread pool too (blobs of CREATE_OFF_LOOP_BYTES)', async () => {
    const dir = await dirs.make();
    const result = await pullUnder(200, dir, 600, CREATE_OFF_LOOP_BYTES);
    expect(result).toMatchObject({ blobs: 600 });
    // Without the relief, 600 blobs close 3 batches (256 each by count, before 16 MiB).
    expect((result as { batches: number }).batches).toBeGreaterThan(3);
  }, 90_000);
});

describe('the exclusive create of a whole blob', () => {
  const sha256Hex = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

  /** A blob dir and a partial dir; `bytes` promoted through `promoteWholeBuffers`. */
  async function promote(bytes: Buffer, plant?: (partPath: string) => Promise<void>) {
    const dir = await dirs.make();
    const blobDir = join(dir, 'blobs');
    const partDir = join(dir, 'partial');
    await mkdir(blobDir);
    await mkdir(partDir);
    const sha = sha256Hex(bytes);
    const partPath = join(partDir, `${sha}.part`);
    await plant?.(partPath);
    let promoted = 0;
    const half = bytes.length >> 1;
    const buffers = [bytes.subarray(0, half), bytes.subarray(half)];
    await promoteWholeBuffers(
      partPath,
      blobDir,
      sha,
      bytes.length,
      buffers,
      () => {
        promoted += 1;
      },
      sealAlone,
    );
    return { dir, blob: join(blobDir, sha), partDir, promoted };
  }

  const sizes = [
    ['below the pool size (main thread)', CREATE_OFF_LOOP_BYTES - 1],
    ['at the pool size (libuv pool)', CREATE_OFF_LOOP_BYTES],
  ] as const;

  for (const [where, size] of sizes) {
    const bytes = Buffer.alloc(size, size % 251);

    it(`writes, seals and promotes a blob ${where}`, async () => {
      const { blob, partDir, promoted } = await promote(bytes);
      expect(await readFile(blob)).toEqual(bytes);
      const info = await lstat(blob);
      expect(info.mode & 0o777).toBe(0o444);
      expect(Math.floor(info.mtimeMs / 1000)).toBe(BLOB_MTIME_S);
      expect(promoted).toBe(1);
      expect(await readdir(partDir)).toEqual([]);
    });

    it(`replaces a file left at the partial's name ${where}`, async () => {
      const { blob } = await promote(bytes, (partPath) => writeFile(partPath, 'left behind'));
      expect(await readFile(blob)).toEqual(bytes);
    });

    it(`never writes through a link planted at the partial's name ${where}`, async () => {
      let target = '';
      const { blob } = await promote(bytes, async (partPath) => {
        target = `${partPath}.target`;
        await writeFile(target, 'not ours');
        await symlink(target, partPath);
      });
      expect(await readFile(blob)).toEqual(bytes);
      expect((await lstat(blob)).isFile()).toBe(true);
      expect(await readFile(target, 'utf8')).toBe('not ours');
    });
  }
});
