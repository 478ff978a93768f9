/**
 * The worker sink (hash-append.ts) behind a partial file: forced on with offloadMinBytes 0, the
 * partial must keep every guarantee of the main-thread path (docs/UPDATER.md §3): exact bytes
 * and digest, resume re-hashed in the worker, reset, refusal of a wrong digest, and no thread
 * left running once the partials are closed.
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hashWorkerRunning } from '#node/workers/hash-worker-host.js';
import { OFFLOAD_FLUSH_BYTES, openPartialBlob } from '#node/blobs/partial-open.js';
import { sha256Hex } from '#test/fakes.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const CONTENT = new Uint8Array(3 * OFFLOAD_FLUSH_BYTES + 12_345).map((_, i) => (i * 31) % 255);
const SHA = sha256Hex(CONTENT);
const OFFLOAD = { offloadMinBytes: 0 };

async function paths() {
  const root = await dirs.make();
  const p = { partialDir: join(root, 'partial'), blobDir: join(root, 'blobs') };
  await mkdir(p.partialDir);
  await mkdir(p.blobDir);
  return p;
}

/** Feeds `bytes` in socket-sized chunks. */
async function feed(
  partial: { write(chunk: Uint8Array): Promise<void> },
  bytes: Uint8Array,
): Promise<void> {
  for (let at = 0; at < bytes.length; at += 65_536) {
    await partial.write(bytes.subarray(at, at + 65_536));
  }
}

describe('partial files hashed and appended by the worker thread', () => {
  it('promotes the exact bytes and reports every append once written, in order', async () => {
    const p = await paths();
    const appended: number[] = [];
    const partial = await openPartialBlob(p, SHA, CONTENT.length, {
      ...OFFLOAD,
      onWritten: (n) => appended.push(n),
    });
    expect(hashWorkerRunning()).toBe(true);
    await feed(partial, CONTENT);
    await partial.complete();
    expect(sha256Hex(await readFile(join(p.blobDir, SHA)))).toBe(SHA);
    expect(appended.reduce((a, b) => a + b, 0)).toBe(CONTENT.length);
    expect(appended.slice(0, 3)).toEqual([
      OFFLOAD_FLUSH_BYTES,
      OFFLOAD_FLUSH_BYTES,
      OFFLOAD_FLUSH_BYTES,
    ]);
    expect(hashWorkerRunning()).toBe(false);
  });

  it('resumes: the worker re-hashes the bytes on disk, and the whole must still match', async () => {
    const p = await paths();
    const first = await openPartialBlob(p, SHA, CONTENT.length, OFFLOAD);
    await feed(first, CONTENT.subarray(0, OFFLOAD_FLUSH_BYTES + 100));
    await first.close();
    expect(hashWorkerRunning()).toBe(false);
    const second = await openPartialBlob(p, SHA, CONTENT.length, OFFLOAD);
    expect(second.offset).toBe(OFFLOAD_FLUSH_BYTES + 100);
    await feed(second, CONTENT.subarray(second.offset));
    await second.complete();
    expect(sha256Hex(await readFile(join(p.blobDir, SHA)))).toBe(SHA);
  });

  it('refuses resumed bytes altered on disk (HASH_MISMATCH) and keeps nothing', async () => {
    const p = await paths();
    const part = join(p.partialDir, `${SHA}.part`);
    const altered = CONTENT.slice(0, OFFLOAD_FLUSH_BYTES);
    altered[7] = (altered[7] ?? 0) ^ 1;
    await writeFile(part, altered);
    const partial = await openPartialBlob(p, SHA, CONTENT.length, OFFLOAD);
    expect(partial.offset).toBe(OFFLOAD_FLUSH_BYTES);
    await feed(partial, CONTENT.subarray(OFFLOAD_FLUSH_BYTES));
    await expect(partial.complete()).rejects.toMatchObject({ code: 'HASH_MISMATCH' });
    await expect(stat(part)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(stat(join(p.blobDir, SHA))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(hashWorkerRunning()).toBe(false);
  });

  it('reset() forgets the hashed bytes: the fresh bytes alone must match', async () => {
    const p = await paths();
    const partial = await openPartialBlob(p, SHA, CONTENT.length, OFFLOAD);
    await feed(partial, new Uint8Array(2 * OFFLOAD_FLUSH_BYTES).fill(9));
    await partial.reset();
    expect(partial.offset).toBe(0);
    await feed(partial, CONTENT);
    await partial.complete();
    expect(sha256Hex(await readFile(join(p.blobDir, SHA)))).toBe(SHA);
  });

  it('shares one thread between partials pulled at once, and stops it after the last', async () => {
    const p = await paths();
    const other = Buffer.from(CONTENT).map((b) => b ^ 0x5a);
    const a = await openPartialBlob(p, SHA, CONTENT.length, OFFLOAD);
    const b = await openPartialBlob(p, sha256Hex(other), other.length, OFFLOAD);
    await Promise.all([feed(a, CONTENT), feed(b, other)]);
    await a.complete();
    expect(hashWorkerRunning()).toBe(true);
    await b.complete();
    expect(hashWorkerRunning()).toBe(false);
    expect(sha256Hex(await readFile(join(p.blobDir, sha256Hex(other))))).toBe(sha256Hex(other));
  });

  it('keeps an artifact of one batch or less on this thread (it may arrive whole)', async () => {
    const p = await paths();
    const small = CONTENT.subarray(0, OFFLOAD_FLUSH_BYTES);
    const partial = await openPartialBlob(p, sha256Hex(small), small.length, OFFLOAD);
    expect(hashWorkerRunning()).toBe(false);
    await partial.write(small);
    await partial.complete();
    expect(sha256Hex(await readFile(join(p.blobDir, sha256Hex(small))))).toBe(sha256Hex(small));
  });

  it('closing mid-transfer (an abort) keeps what was received and stops the thread', async () => {
    const p = await paths();
    const partial = await openPartialBlob(p, SHA, CONTENT.length, OFFLOAD);
    await feed(partial, CONTENT.subarray(0, OFFLOAD_FLUSH_BYTES + 65_536));
    await partial.close();
    expect(hashWorkerRunning()).toBe(false);
    const kept = await readFile(join(p.partialDir, `${SHA}.part`));
    // Compared by digest: a deep equality of MiBs is slower than the whole test.
    expect(sha256Hex(kept)).toBe(sha256Hex(CONTENT.subarray(0, OFFLOAD_FLUSH_BYTES + 65_536)));
  });
});
