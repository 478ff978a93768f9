import { createHash } from 'node:crypto';
import {
  appendFile,
  mkdir,
  open as openFile,
  readdir,
  readFile,
  stat,
  truncate,
  writeFile,
  type FileHandle,
} from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { UpdateError } from '#core/errors.js';
import { openChunkedPartial } from '#node/blobs/chunked-partial.js';
import { encodeSection } from '#protocol/chunk-index.js';
import { bytesOf, tempDirs } from '#test/updater-harness.js';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());
afterEach(() => vi.restoreAllMocks());

const CONTENT = bytesOf(100_000, 7);
const SHA = createHash('sha256').update(CONTENT).digest('hex');
const PLAN = 'ab'.repeat(32);
const chunk = (offset: number, length: number) => ({
  bytes: CONTENT.subarray(offset, offset + length),
  chunks: encodeSection(0, [
    {
      length,
      sha256: createHash('sha256')
        .update(CONTENT.subarray(offset, offset + length))
        .digest(),
    },
  ]),
});

async function setup(planId = PLAN, syncEveryBytes?: number) {
  const root = await dirs.make('chunked-partial-');
  const partialDir = join(root, 'partial');
  const blobDir = join(root, 'blobs');
  await mkdir(partialDir);
  await mkdir(blobDir);
  const open = (id = planId) =>
    openChunkedPartial({
      partialDir,
      blobDir,
      sha256: SHA,
      size: CONTENT.length,
      planId: id,
      ...(syncEveryBytes === undefined ? {} : { syncEveryBytes }),
    });
  return { root, partialDir, blobDir, open };
}

/** FileHandle's prototype (node does not export the class), to fail its datasync. */
async function fileHandlePrototype(dir: string): Promise<FileHandle> {
  const handle = await openFile(join(dir, 'probe'), 'w');
  await handle.close();
  return Object.getPrototypeOf(handle) as FileHandle;
}

const eio = (): Error => Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });

async function writeChunk(
  p: Awaited<ReturnType<typeof openChunkedPartial>>,
  offset: number,
  length: number,
) {
  const c = chunk(offset, length);
  await p.write(offset, c.bytes, c.chunks);
}

describe('chunked partial (docs/UPDATER.md §9)', () => {
  it('assembles chunks at their offsets and promotes a read-only blob after the whole hash', async () => {
    const { open, blobDir, partialDir } = await setup();
    const p = await open();
    await writeChunk(p, 60_000, 40_000);
    await writeChunk(p, 0, 60_000);
    await p.complete();
    const blob = join(blobDir, SHA);
    expect(await readFile(blob)).toEqual(Buffer.from(CONTENT));
    expect((await stat(blob)).mode & 0o777).toBe(0o444);
    await expect(stat(join(partialDir, `${SHA}.chunks`))).rejects.toThrow();
  });

  it('keeps recorded chunks across a reopen, re-hashing each one', async () => {
    const { open } = await setup();
    const first = await open();
    await writeChunk(first, 0, 30_000);
    await writeChunk(first, 30_000, 30_000);
    await first.close();
    const second = await open();
    expect([...second.verified]).toEqual([
      [0, 30_000],
      [30_000, 30_000],
    ]);
    await second.close();
  });

  it('never trusts a record whose bytes changed on disk', async () => {
    const { open, partialDir } = await setup();
    const first = await open();
    await writeChunk(first, 0, 30_000);
    await writeChunk(first, 30_000, 30_000);
    await first.close();
    const data = join(partialDir, `${SHA}.chunked`);
    const bytes = await readFile(data);
    bytes[40_000] = (bytes[40_000] as number) ^ 1;
    await writeFile(data, bytes);
    const second = await open();
    expect([...second.verified]).toEqual([[0, 30_000]]);
    await second.close();
  });

  it('drops a torn last record (a crash mid-append)', async () => {
    const { open, partialDir } = await setup();
    const first = await open();
    await writeChunk(first, 0, 30_000);
    await first.close();
    await appendFile(join(partialDir, `${SHA}.chunks`), Buffer.alloc(20, 1));
    const second = await open();
    expect([...second.verified]).toEqual([[0, 30_000]]);
    await second.close();
  });

  it('drops a record written for another chunk layout, with its data', async () => {
    const { open, partialDir } = await setup();
    const first = await open();
    await writeChunk(first, 0, 30_000);
    await first.close();
    const other = await open('cd'.repeat(32));
    expect(other.verified.size).toBe(0);
    await other.close();
    expect((await stat(join(partialDir, `${SHA}.chunked`))).size).toBe(CONTENT.length);
  });

  it('refuses to promote a file whose whole SHA-256 is wrong (HASH_MISMATCH) and drops it', async () => {
    const { open, blobDir, partialDir } = await setup();
    const p = await open();
    await writeChunk(p, 0, 60_000);
    // The rest is never written: zeros where the signed bytes should be.
    const error = await p.complete().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpdateError);
    expect((error as UpdateError).code).toBe('HASH_MISMATCH');
    await expect(stat(join(blobDir, SHA))).rejects.toThrow();
    await expect(stat(join(partialDir, `${SHA}.chunked`))).rejects.toThrow();
  });

  it('trusts no digest handed to complete() that is not the signed one', async () => {
    const { open, blobDir } = await setup();
    const p = await open();
    await writeChunk(p, 0, CONTENT.length);
    const error = await p.complete('00'.repeat(32)).catch((e: unknown) => e);
    expect((error as UpdateError).code).toBe('HASH_MISMATCH');
    await expect(stat(join(blobDir, SHA))).rejects.toThrow();
    // The caller's one-pass digest of the very bytes written promotes without a re-read.
    const again = await open();
    await writeChunk(again, 0, CONTENT.length);
    await again.complete(SHA);
    expect(
      createHash('sha256')
        .update(await readFile(join(blobDir, SHA)))
        .digest('hex'),
    ).toBe(SHA);
  });

  it('drops the whole partial when a sync behind the writes failed: no run may trust it', async () => {
    const { root, open, blobDir, partialDir } = await setup(PLAN, 30_000);
    vi.spyOn(await fileHandlePrototype(root), 'datasync').mockRejectedValueOnce(eio());
    const p = await open();
    await writeChunk(p, 0, 60_000);
    await writeChunk(p, 60_000, 40_000);
    await expect(p.complete()).rejects.toMatchObject({
      code: 'IO',
      message: 'cannot sync a chunked download',
    });
    expect(await readdir(blobDir)).toEqual([]);
    // Its page cache still holds the bytes: a reopen must start from nothing.
    expect(await readdir(partialDir)).toEqual([]);
    const reopened = await open();
    expect(reopened.verified.size).toBe(0);
    // Closed, not left to the garbage collector (Node's DEP0137 warning in the test log).
    await reopened.close();
  });

  it('drops the whole partial when the final sync failed, and when a close found a failed sync', async () => {
    const first = await setup();
    const prototype = await fileHandlePrototype(first.root);
    vi.spyOn(prototype, 'datasync').mockRejectedValueOnce(eio());
    const p = await first.open();
    await writeChunk(p, 0, 100_000);
    await expect(p.complete()).rejects.toMatchObject({ code: 'EIO' });
    expect(await readdir(first.blobDir)).toEqual([]);
    expect(await readdir(first.partialDir)).toEqual([]);
    // A download that ends another way (an abort) after a failed background sync.
    const second = await setup(PLAN, 30_000);
    vi.spyOn(prototype, 'datasync').mockRejectedValueOnce(eio());
    const q = await second.open();
    await writeChunk(q, 0, 60_000);
    await expect(q.close()).rejects.toMatchObject({ code: 'IO' });
    expect(await readdir(second.partialDir)).toEqual([]);
  });

  it('reads back what was written (a chunk repeated inside the artifact)', async () => {
    const { open } = await setup();
    const p = await open();
    await writeChunk(p, 10_000, 5000);
    expect(Buffer.from(await p.read(10_000, 5000))).toEqual(
      Buffer.from(CONTENT.subarray(10_000, 15_000)),
    );
    await p.close();
  });

  it('recovers from a record file cut inside its header', async () => {
    const { open, partialDir } = await setup();
    const first = await open();
    await writeChunk(first, 0, 30_000);
    await first.close();
    await truncate(join(partialDir, `${SHA}.chunks`), 10);
    const second = await open();
    expect(second.verified.size).toBe(0);
    await second.close();
  });
});
