import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobStore } from '#server/store/blob-store.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'blob-store-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

describe('BlobStore', () => {
  it('stores bytes under their SHA-256 in a two-hex fan-out directory', async () => {
    const store = new BlobStore(join(dir, 'blobs'));
    const bytes = new TextEncoder().encode('hello');
    const info = await store.putBytes(bytes);
    expect(info).toEqual({ sha256: sha(bytes), size: 5 });
    const path = join(dir, 'blobs', info.sha256.slice(0, 2), info.sha256);
    expect(await readFile(path, 'utf8')).toBe('hello');
    expect(await store.sizeOf(info.sha256)).toBe(5);
  });

  it('streams a file in and leaves no temporary file behind', async () => {
    const store = new BlobStore(join(dir, 'blobs'));
    const src = join(dir, 'src.bin');
    const content = Buffer.alloc(3 * 1024 * 1024 + 7, 9);
    await writeFile(src, content);
    const info = await store.putFile(src);
    expect(info).toEqual({ sha256: sha(content), size: content.length });
    const top = await readdir(join(dir, 'blobs'));
    expect(top.filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('stores the same content twice as one blob', async () => {
    const store = new BlobStore(join(dir, 'blobs'));
    const a = await store.putBytes(new Uint8Array([1, 2, 3]));
    const b = await store.putBytes(new Uint8Array([1, 2, 3]));
    expect(a).toEqual(b);
    expect(await readdir(join(dir, 'blobs', a.sha256.slice(0, 2)))).toEqual([a.sha256]);
  });

  it('reports an absent blob as undefined', async () => {
    const store = new BlobStore(join(dir, 'blobs'));
    expect(await store.sizeOf('0'.repeat(64))).toBeUndefined();
  });

  it('refuses a path for something that is not a digest', () => {
    const store = new BlobStore(join(dir, 'blobs'));
    expect(() => store.pathOf('../../etc/passwd')).toThrow(RangeError);
  });

  it('stores the concatenation of files, streamed one after another (a pack)', async () => {
    const store = new BlobStore(join(dir, 'blobs'));
    const parts = [Buffer.from('first '), Buffer.alloc(200_000, 3), Buffer.from(' last')];
    const paths = parts.map((_, i) => join(dir, `part-${i}`));
    for (const [i, path] of paths.entries()) await writeFile(path, parts[i] as Buffer);
    const stored: string[] = [];
    const info = await store.putConcat(paths, { onStored: (sha256) => stored.push(sha256) });
    const whole = Buffer.concat(parts);
    expect(info).toEqual({ sha256: sha(whole), size: whole.length });
    expect(stored).toEqual([info.sha256]);
    expect(await readFile(store.pathOf(info.sha256))).toEqual(whole);
  });

  it('fails on a missing source file and leaves no temporary file', async () => {
    const store = new BlobStore(join(dir, 'blobs'));
    await expect(store.putFile(join(dir, 'missing'))).rejects.toThrow();
    expect(await readdir(join(dir, 'blobs'))).toEqual([]);
  });
});
