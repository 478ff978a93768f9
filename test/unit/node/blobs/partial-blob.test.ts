import { mkdir, open, readdir, readFile, stat, writeFile, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BLOB_MTIME_S } from '#node/blobs/intact-blob.js';
import { FLUSH_BYTES, IDLE_FLUSH_MS } from '#node/blobs/partial-blob.js';
import { openPartialBlob } from '#node/blobs/partial-open.js';
import { FakeTime, sha256Hex } from '#test/fakes.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());
afterEach(() => vi.restoreAllMocks());

const CONTENT = new Uint8Array(FLUSH_BYTES + 1000).map((_, i) => i % 251);
const SHA = sha256Hex(CONTENT);
// Blob contents are compared by digest: toEqual walks a 1 MiB array for seconds.

/** FileHandle's prototype (node does not export the class), to watch or fail its calls. */
async function fileHandlePrototype(dir: string): Promise<FileHandle> {
  const handle = await open(join(dir, 'probe'), 'w');
  await handle.close();
  return Object.getPrototypeOf(handle) as FileHandle;
}

/**
 * A 1 MiB partial synced early every FLUSH_BYTES whose first early sync fails with EIO, after
 * `buffers` of its four FLUSH_BYTES were written.
 */
async function failingEarlySync(buffers: number) {
  const p = await paths();
  const big = new Uint8Array(4 * FLUSH_BYTES).map((_, i) => (i * 3) % 239);
  const eio = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
  const prototype = await fileHandlePrototype(dirname(p.partialDir));
  vi.spyOn(prototype, 'datasync').mockRejectedValueOnce(eio);
  const partial = await openPartialBlob(p, sha256Hex(big), big.length, {
    writebackEveryBytes: FLUSH_BYTES,
    offloadMinBytes: Infinity,
  });
  for (let at = 0; at < buffers * FLUSH_BYTES; at += FLUSH_BYTES) {
    await partial.write(big.subarray(at, at + FLUSH_BYTES));
  }
  return { p, partial, eio };
}

async function paths() {
  const root = await dirs.make();
  const p = { partialDir: join(root, 'partial'), blobDir: join(root, 'blobs') };
  await mkdir(p.partialDir);
  await mkdir(p.blobDir);
  return p;
}

describe('partial blobs', () => {
  it('promotes verified bytes into the blob store as a read-only file', async () => {
    const p = await paths();
    const steps: string[] = [];
    const partial = await openPartialBlob(p, SHA, CONTENT.length, {
      onStep: (s) => steps.push(s),
    });
    await partial.write(CONTENT.subarray(0, 100));
    await partial.write(CONTENT.subarray(100));
    await partial.complete();
    const blob = join(p.blobDir, SHA);
    expect(sha256Hex(await readFile(blob))).toBe(SHA);
    expect((await stat(blob)).mode & 0o222).toBe(0);
    expect(steps).toContain('partial-written');
    expect(steps.at(-1)).toBe('blob-promoted');
  });

  it('writes an artifact that arrives whole once: no append, no .meta, read-only, sentinel mtime', async () => {
    const p = await paths();
    const small = CONTENT.subarray(0, 4096);
    const steps: string[] = [];
    let promoted = 0;
    const partial = await openPartialBlob(p, sha256Hex(small), small.length, {
      onStep: (s) => steps.push(s),
      onPromoted: () => promoted++,
    });
    await partial.setValidator('"etag"');
    await partial.write(small);
    await partial.complete();
    const blob = join(p.blobDir, sha256Hex(small));
    expect(new Uint8Array(await readFile(blob))).toEqual(small);
    const info = await stat(blob);
    expect(info.mode & 0o777).toBe(0o444);
    expect(info.mtimeMs).toBe(BLOB_MTIME_S * 1000);
    expect(steps).toEqual(['blob-promoted']);
    expect(promoted).toBe(1);
    expect(await readdir(p.partialDir)).toEqual([]);
  });

  it('writes .meta with the first append, and a refused whole artifact leaves no file', async () => {
    const p = await paths();
    const first = await openPartialBlob(p, SHA, CONTENT.length);
    await first.setValidator('"v1"');
    await first.write(CONTENT.subarray(0, FLUSH_BYTES));
    await first.close();
    expect((await readdir(p.partialDir)).sort()).toEqual([`${SHA}.meta`, `${SHA}.part`]);
    const bad = await openPartialBlob(p, sha256Hex(new Uint8Array(10)), 10);
    await bad.write(new Uint8Array(10).fill(1));
    await expect(bad.complete()).rejects.toMatchObject({ code: 'HASH_MISMATCH' });
    expect((await readdir(p.partialDir)).sort()).toEqual([`${SHA}.meta`, `${SHA}.part`]);
    expect(await readdir(p.blobDir)).toEqual([]);
  });

  it('reports the bytes of every append, for GC pacing (read-buffer-gc.ts)', async () => {
    const p = await paths();
    const appended: number[] = [];
    const partial = await openPartialBlob(p, SHA, CONTENT.length, {
      onWritten: (n) => appended.push(n),
    });
    await partial.write(CONTENT.subarray(0, FLUSH_BYTES));
    await partial.write(CONTENT.subarray(FLUSH_BYTES));
    await partial.complete();
    expect(appended).toEqual([FLUSH_BYTES, CONTENT.length - FLUSH_BYTES]);
  });

  it.each([
    ['on this thread', Infinity],
    ['in the worker', 0],
  ])('syncs the data of a large partial as it grows, appended %s', async (_, offloadMinBytes) => {
    const p = await paths();
    const big = new Uint8Array(8 * FLUSH_BYTES).map((_, i) => (i * 5) % 241);
    const datasync = vi.spyOn(await fileHandlePrototype(dirname(p.partialDir)), 'datasync');
    const partial = await openPartialBlob(p, sha256Hex(big), big.length, {
      writebackEveryBytes: 2 * FLUSH_BYTES,
      offloadMinBytes,
    });
    for (let at = 0; at < big.length; at += FLUSH_BYTES) {
      await partial.write(big.subarray(at, at + FLUSH_BYTES));
    }
    await partial.complete();
    // One at a time behind the appends: at least one, at most one per interval.
    expect(datasync.mock.calls.length).toBeGreaterThanOrEqual(1);
    expect(datasync.mock.calls.length).toBeLessThanOrEqual(4);
    expect(sha256Hex(await readFile(join(p.blobDir, sha256Hex(big))))).toBe(sha256Hex(big));
  });

  it('promotes nothing when an early sync failed, however the final fsync went', async () => {
    const { p, partial, eio } = await failingEarlySync(4);
    await expect(partial.complete()).rejects.toBe(eio);
    expect(await readdir(p.blobDir)).toEqual([]);
    // Removed, not kept: a later run would re-hash it from the page cache and promote it.
    expect(await readdir(p.partialDir)).toEqual([]);
  });

  it('removes a partial whose early sync failed when the download ends another way', async () => {
    const { p, partial } = await failingEarlySync(3);
    // An abort (or a stall) closes it before complete.
    await partial.close();
    expect(await readdir(p.partialDir)).toEqual([]);
  });

  it('closes the descriptor only after the early sync in progress has ended', async () => {
    const p = await paths();
    const big = new Uint8Array(4 * FLUSH_BYTES).map((_, i) => (i * 11) % 233);
    const prototype = await fileHandlePrototype(dirname(p.partialDir));
    let release = (): void => undefined;
    const datasync = vi
      .spyOn(prototype, 'datasync')
      .mockImplementationOnce(() => new Promise<void>((resolve) => (release = resolve)));
    const partial = await openPartialBlob(p, sha256Hex(big), big.length, {
      writebackEveryBytes: FLUSH_BYTES,
      offloadMinBytes: Infinity,
    });
    for (let at = 0; at < 2 * FLUSH_BYTES; at += FLUSH_BYTES) {
      await partial.write(big.subarray(at, at + FLUSH_BYTES));
    }
    const closed = partial.close();
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    // The handle the sync ran on (a FileHandle's fd turns -1 once it is closed).
    const syncing = datasync.mock.contexts[0] as FileHandle;
    expect(syncing.fd).toBeGreaterThanOrEqual(0);
    release();
    await closed;
    expect(syncing.fd).toBe(-1);
  });

  it('reads on while a full buffer is written: write() waits only for the append before it', async () => {
    const p = await paths();
    const big = new Uint8Array(4 * FLUSH_BYTES).map((_, i) => (i * 7) % 253);
    const appended: number[] = [];
    const partial = await openPartialBlob(p, sha256Hex(big), big.length, {
      onWritten: (n) => appended.push(n),
    });
    // The first full buffer is handed to the disk and write() returns before it is written.
    await partial.write(big.subarray(0, FLUSH_BYTES));
    expect(appended).toEqual([]);
    // The second waits for the first append only: never more than two buffers held.
    await partial.write(big.subarray(FLUSH_BYTES, 2 * FLUSH_BYTES));
    expect(appended).toEqual([FLUSH_BYTES]);
    await partial.write(big.subarray(2 * FLUSH_BYTES));
    await partial.complete();
    expect(appended.reduce((a, b) => a + b, 0)).toBe(big.length);
    expect(sha256Hex(await readFile(join(p.blobDir, sha256Hex(big))))).toBe(sha256Hex(big));
  });

  it('appends what is buffered once the bytes pause for IDLE_FLUSH_MS, not while they flow', async () => {
    const p = await paths();
    const time = new FakeTime();
    const appended: number[] = [];
    let firstAppend = (): void => undefined;
    const appendedOnce = new Promise<void>((resolve) => {
      firstAppend = resolve;
    });
    const partial = await openPartialBlob(p, SHA, CONTENT.length, {
      onWritten: (n) => {
        appended.push(n);
        firstAppend();
      },
      timers: time,
    });
    const part = join(p.partialDir, `${SHA}.part`);
    await partial.write(CONTENT.subarray(0, 1000));
    time.advance(IDLE_FLUSH_MS - 1);
    await partial.write(CONTENT.subarray(1000, 3000));
    time.advance(IDLE_FLUSH_MS - 1);
    // Bytes kept coming within each window: still nothing on disk (no file yet).
    await expect(stat(part)).rejects.toMatchObject({ code: 'ENOENT' });
    // A pause of at most twice IDLE_FLUSH_MS after the last write flushes.
    time.advance(IDLE_FLUSH_MS + 1);
    // The append runs on the file system's own time (the thread pool, slow on a loaded
    // machine): waited for, bounded by the test's timeout, not by a count of event-loop turns.
    await appendedOnce;
    expect(appended).toEqual([3000]);
    expect((await stat(part)).size).toBe(3000);
    await partial.write(CONTENT.subarray(3000));
    await partial.complete();
    expect(sha256Hex(await readFile(join(p.blobDir, SHA)))).toBe(SHA);
    expect(time.timerCount).toBe(0);
  });

  it('arms no idle timer for a write that brings every signed byte (complete comes next)', async () => {
    const p = await paths();
    const time = new FakeTime();
    const partial = await openPartialBlob(p, SHA, CONTENT.length, { timers: time });
    await partial.write(CONTENT.subarray(0, 1000));
    expect(time.timerCount).toBe(1); // bytes still to come: a pause flushes these
    const whole = await openPartialBlob(p, sha256Hex(CONTENT.subarray(0, 10)), 10, {
      timers: time,
    });
    await whole.write(CONTENT.subarray(0, 10));
    expect(time.timerCount).toBe(1); // the whole artifact arrived: no timer of its own
    await whole.complete();
    await partial.close();
    expect(time.timerCount).toBe(0);
  });

  it('leaves no idle append pending after close, and resumes from what was flushed', async () => {
    const p = await paths();
    const time = new FakeTime();
    const first = await openPartialBlob(p, SHA, CONTENT.length, { timers: time });
    await first.write(CONTENT.subarray(0, 5000));
    await first.close();
    expect(time.timerCount).toBe(0);
    const second = await openPartialBlob(p, SHA, CONTENT.length, { timers: time });
    expect(second.offset).toBe(5000);
    await second.close();
  });

  it('resumes after close: re-hashes the bytes on disk and continues', async () => {
    const p = await paths();
    const first = await openPartialBlob(p, SHA, CONTENT.length);
    await first.write(CONTENT.subarray(0, 5000));
    await first.setValidator('"etag"');
    await first.close();
    const second = await openPartialBlob(p, SHA, CONTENT.length);
    expect(second.offset).toBe(5000);
    expect(second.validator).toBe('"etag"');
    await second.write(CONTENT.subarray(5000));
    await second.complete();
    expect(sha256Hex(await readFile(join(p.blobDir, SHA)))).toBe(SHA);
  });

  it('discards a partial longer than the signed size', async () => {
    const p = await paths();
    await writeFile(join(p.partialDir, `${SHA}.part`), new Uint8Array(CONTENT.length + 1));
    const partial = await openPartialBlob(p, SHA, CONTENT.length);
    expect(partial.offset).toBe(0);
    await partial.close();
  });

  it('refuses a write past the signed size (SIZE_MISMATCH)', async () => {
    const p = await paths();
    const partial = await openPartialBlob(p, SHA, 10);
    await expect(partial.write(new Uint8Array(11))).rejects.toMatchObject({
      code: 'SIZE_MISMATCH',
    });
    await partial.close();
  });

  it('refuses and deletes bytes with the wrong digest (HASH_MISMATCH)', async () => {
    const p = await paths();
    const partial = await openPartialBlob(p, SHA, CONTENT.length);
    await partial.write(new Uint8Array(CONTENT.length));
    await expect(partial.complete()).rejects.toMatchObject({ code: 'HASH_MISMATCH' });
    await expect(stat(join(p.partialDir, `${SHA}.part`))).rejects.toThrow();
    await expect(stat(join(p.blobDir, SHA))).rejects.toThrow();
  });

  it('refuses completing short of the signed size (SIZE_MISMATCH)', async () => {
    const p = await paths();
    const partial = await openPartialBlob(p, SHA, CONTENT.length);
    await partial.write(CONTENT.subarray(0, 10));
    await expect(partial.complete()).rejects.toMatchObject({ code: 'SIZE_MISMATCH' });
  });

  it('reset() drops the bytes and the validator', async () => {
    const p = await paths();
    const partial = await openPartialBlob(p, SHA, CONTENT.length);
    await partial.write(new Uint8Array(100));
    await partial.setValidator('"x"');
    await partial.reset();
    expect(partial.offset).toBe(0);
    expect(partial.validator).toBeUndefined();
    await partial.write(CONTENT);
    await partial.complete();
    expect(sha256Hex(await readFile(join(p.blobDir, SHA)))).toBe(SHA);
  });
});
