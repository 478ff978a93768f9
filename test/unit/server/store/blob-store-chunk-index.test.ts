import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobStore } from '#server/store/blob-store.js';
import { ChunkIndexBuilder, parseChunkIndex, readWholeTree } from '#protocol';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'blob-store-ci-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const OPTIONS = { chunkIndexMinBytes: 1024 * 1024 };

describe('BlobStore chunk indexes (docs/PROTOCOL.md §2.6)', () => {
  it('streams a large file once and stores its index and chunk list as blobs', async () => {
    const store = new BlobStore(join(dir, 'blobs'));
    const content = randomBytes(3 * 1024 * 1024 + 5);
    const src = join(dir, 'big.bin');
    await writeFile(src, content);
    const info = await store.putFile(src, OPTIONS);
    expect(info.sha256).toBe(sha(content));
    const ref = info.chunkIndex;
    if (ref === undefined || ref.listSha256 === undefined) throw new Error('expected an index');
    const indexBytes = await readFile(store.pathOf(ref.sha256));
    const list = await readFile(store.pathOf(ref.listSha256));
    expect(sha(indexBytes)).toBe(ref.sha256);
    const index = parseChunkIndex(indexBytes, ref, { sha256: info.sha256, size: info.size });
    expect(sha(list)).toBe(index.listSha256);
    // The same tree a client computes over the same bytes.
    const builder = new ChunkIndexBuilder();
    builder.update(content);
    expect(sha(builder.finish().indexBytes)).toBe(ref.sha256);
    expect(readWholeTree(index, list)[0]?.count).toBeGreaterThan(100);
  });

  it('gives a small blob no index, and a blob without the option none either', async () => {
    const store = new BlobStore(join(dir, 'blobs'));
    expect((await store.putBytes(randomBytes(1000), OPTIONS)).chunkIndex).toBeUndefined();
    expect((await store.putBytes(randomBytes(2 * 1024 * 1024))).chunkIndex).toBeUndefined();
  });

  it('keeps a one-level index without a chunk list', async () => {
    const store = new BlobStore(join(dir, 'blobs'));
    const info = await store.putBytes(randomBytes(1024 * 1024), OPTIONS);
    expect(info.chunkIndex?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(info.chunkIndex?.listSha256).toBeUndefined();
  });
});
