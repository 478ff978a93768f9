/**
 * The chunk tree of a blob fetched whole (docs/UPDATER.md §9.1, src/core/chunks/tree-of-whole-blob.ts):
 * a whole install caches the published index and chunk list of what it installed, so the first
 * delta after it reads nothing to learn the held chunks; a tree that lies about the held blob,
 * or a list that does not match the signed index, costs a re-fetch or a read, never a wrong
 * byte.
 */
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '#core/ports.js';
import { chunkLayoutKey, FileChunkStore } from '#node/blobs/chunk-store.js';
import { buildChunkTree, ChunkIndexBuilder } from '#protocol/chunk-index-builder.js';
import {
  DEFAULT_CHUNKER_PARAMS,
  DEFAULT_TREE_LAYOUT,
  format1Layout,
  type Section,
} from '#protocol/chunk-index.js';
import type { ManifestArtifact } from '#protocol/manifest.js';
import { startChunkStage, type ChunkStage } from '#test/chunk-stage.js';
import { sha256Hex } from '#test/hostile-server.js';
import type { Nginx } from '#test/nginx.js';
import { filesOf, snapshotTree } from '#test/tree-snapshot.js';
import { bytesOf, tempDirs, updateOnce, type UpdaterServer } from '#test/updater-harness.js';

const MiB = 1024 * 1024;
const dirs = tempDirs();
let nginx: Nginx;
let registry: UpdaterServer;
let stage: ChunkStage;
const LAYOUT = chunkLayoutKey(DEFAULT_CHUNKER_PARAMS, DEFAULT_TREE_LAYOUT);

beforeAll(async () => {
  stage = await startChunkStage(dirs, { wwwPrefix: 'chunk-tree-www-', cdnPath: 'cdn' });
  ({ nginx, registry } = stage);
});

afterAll(async () => {
  await stage.close();
  await dirs.cleanup();
});

/** Publishes one `app.bin` with its blobs (artifact, index, list) under nginx /cdn. */
async function publish(content: Uint8Array): Promise<ManifestArtifact> {
  const [entry] = await stage.publish([{ name: 'app.bin', content }]);
  return entry as ManifestArtifact;
}

/** The published index and chunk list of `entry`, as nginx serves them. */
async function publishedTree(entry: ManifestArtifact): Promise<[Buffer, Buffer]> {
  const list = entry.chunk_index?.list_url?.split('/').pop() ?? '';
  return [
    await readFile(join(nginx.root, 'cdn', entry.chunk_index?.sha256 ?? '')),
    await readFile(join(nginx.root, 'cdn', list)),
  ];
}

function edited(base: Uint8Array, at: number, length: number, seed: number): Uint8Array {
  const out = Uint8Array.from(base);
  out.set(bytesOf(length, seed), at);
  return out;
}

function recorder() {
  const warnings: string[] = [];
  return { warnings, logger: { ...silentLogger, warn: (m: string) => warnings.push(m) } };
}

/** The chunk store of a state directory, counting the bytes it reads to learn trees. */
function storeOf(dir: string, reads: { bytes: number }) {
  const meta = join(dir, '.updater');
  return new FileChunkStore({
    blobDir: join(meta, 'blobs'),
    partialDir: join(meta, 'partial'),
    cacheDir: join(meta, 'chunks'),
    onRead: (n) => {
      reads.bytes += n;
    },
  });
}

const treePath = (dir: string, sha256: string): string =>
  join(dir, '.updater', 'chunks', LAYOUT, sha256);

describe('the chunk tree of a whole install', () => {
  it('is cached from the published index, and the next delta reads nothing to learn it', async () => {
    const dir = await dirs.make('chunk-tree-');
    const v1 = bytesOf(3 * MiB, 71);
    const e1 = await publish(v1);
    const first = recorder();
    const installed = await updateOnce(registry, dir, { logger: first.logger });
    expect(first.warnings).toEqual([]);
    const [index, list] = await publishedTree(e1);
    // The index and list are paid at install time, counted with the whole file.
    expect(installed.bytesDownloaded).toBe(3 * MiB + index.length + list.length);
    expect(await readFile(treePath(dir, e1.sha256))).toEqual(Buffer.concat([index, list]));

    const reads = { bytes: 0 };
    const local = await storeOf(dir, reads).localChunks(
      DEFAULT_CHUNKER_PARAMS,
      DEFAULT_TREE_LAYOUT,
    );
    expect(local.size).toBeGreaterThan(100);
    expect(reads.bytes).toBe(0);

    const v2 = edited(v1, MiB, 40_000, 72);
    await publish(v2);
    const second = recorder();
    const result = await updateOnce(registry, dir, { logger: second.logger });
    expect(second.warnings).toEqual([]);
    const app = result.plan?.artifacts[0];
    expect(app?.method).toBe('chunks');
    expect(app?.fetchBytes).toBeLessThan(40_000 + 3 * 64 * 1024);
    expect(filesOf(await snapshotTree(join(dir, 'current')))).toEqual({ 'app.bin': sha256Hex(v2) });
  });

  it('that lies about the held blob costs re-fetches, never a wrong byte', async () => {
    const dir = await dirs.make('chunk-tree-');
    const v1 = bytesOf(2 * MiB, 81);
    const e1 = await publish(v1);
    await updateOnce(registry, dir);
    const v2 = edited(v1, 512 * 1024, 100_000, 82);
    await publish(v2);
    // The held blob's tree claims v2's chunks (the edited ones included) under v1's name.
    const builder = new ChunkIndexBuilder(DEFAULT_CHUNKER_PARAMS, DEFAULT_TREE_LAYOUT);
    builder.update(v2);
    const level0 = builder.finish().levels[0] as Section;
    const lie = buildChunkTree(
      level0,
      v1.length,
      e1.sha256,
      DEFAULT_CHUNKER_PARAMS,
      DEFAULT_TREE_LAYOUT,
    );
    await writeFile(treePath(dir, e1.sha256), Buffer.concat([lie.indexBytes, lie.listBytes]));

    const result = await updateOnce(registry, dir);
    expect(result.outcome).toBe('applied');
    // Planned as all held; the chunks the lie covered were fetched when their bytes differed.
    expect(result.plan?.artifacts[0]).toMatchObject({ method: 'chunks', fetchBytes: 0 });
    expect(result.bytesDownloaded).toBeGreaterThanOrEqual(100_000);
    expect(filesOf(await snapshotTree(join(dir, 'current')))).toEqual({ 'app.bin': sha256Hex(v2) });
    // The held blob itself is untouched.
    expect(sha256Hex(await readFile(join(dir, '.updater', 'blobs', e1.sha256)))).toBe(e1.sha256);
  });

  it('is not kept when the served list does not match the signed index', async () => {
    const dir = await dirs.make('chunk-tree-');
    const v1 = bytesOf(2 * MiB, 91);
    const e1 = await publish(v1);
    const [, list] = await publishedTree(e1);
    const listPath = join(nginx.root, 'cdn', e1.chunk_index?.list_url?.split('/').pop() ?? '');
    const bad = Buffer.from(list);
    bad[bad.length - 1] = (bad[bad.length - 1] as number) ^ 1;
    await writeFile(listPath, bad);
    const first = recorder();
    await updateOnce(registry, dir, { logger: first.logger });
    expect(first.warnings).toContain('chunk tree not kept, the blob will be read to learn it');
    await expect(readFile(treePath(dir, e1.sha256))).rejects.toMatchObject({ code: 'ENOENT' });
    await writeFile(listPath, list);

    // The next delta learns the held tree by reading the blob once, and is exact.
    const v2 = edited(v1, MiB, 30_000, 92);
    await publish(v2);
    const result = await updateOnce(registry, dir);
    expect(result.plan?.artifacts[0]?.method).toBe('chunks');
    expect(filesOf(await snapshotTree(join(dir, 'current')))).toEqual({ 'app.bin': sha256Hex(v2) });
  });

  it('left half-written by a kill costs one read, and the leftovers are removed', async () => {
    const dir = await dirs.make('chunk-tree-');
    const v1 = bytesOf(2 * MiB, 95);
    const e1 = await publish(v1);
    await updateOnce(registry, dir);
    // What a kill -9 inside the atomic write leaves: a temporary file, and no tree.
    const path = treePath(dir, e1.sha256);
    const tree = await readFile(path);
    await rm(path);
    const temp = join(dir, '.updater', 'chunks', LAYOUT, `.${e1.sha256}.0a0b0c0d0e0f.tmp`);
    await writeFile(temp, tree.subarray(0, 700));
    const reads = { bytes: 0 };
    const local = await storeOf(dir, reads).localChunks(
      DEFAULT_CHUNKER_PARAMS,
      DEFAULT_TREE_LAYOUT,
    );
    expect(reads.bytes).toBe(v1.length);
    expect(local.size).toBeGreaterThan(50);
    expect(await readdir(join(dir, '.updater', 'chunks', LAYOUT))).toEqual([e1.sha256]);
    expect(await readFile(path)).toEqual(tree);
  });
  it('cached in format 1 is regrouped to format 2, not read, and serves the next delta', async () => {
    const dir = await dirs.make('chunk-tree-');
    const v1 = bytesOf(3 * MiB, 97);
    const e1 = await publish(v1);
    await updateOnce(registry, dir);
    // As a client of a format 1 registry holds it: the tree of v1 in format 1, fan-out 3.
    const chunks = join(dir, '.updater', 'chunks');
    const old = chunkLayoutKey(DEFAULT_CHUNKER_PARAMS, format1Layout(3));
    const plantFormat1 = async (): Promise<void> => {
      const builder = new ChunkIndexBuilder(DEFAULT_CHUNKER_PARAMS, format1Layout(3));
      builder.update(v1);
      const tree = builder.finish();
      expect(tree.indexBytes[4]).toBe(1);
      await rm(chunks, { recursive: true, force: true });
      await mkdir(join(chunks, old), { recursive: true });
      await writeFile(
        join(chunks, old, e1.sha256),
        Buffer.concat([tree.indexBytes, tree.listBytes]),
      );
    };
    await plantFormat1();
    const reads = { bytes: 0 };
    const local = await storeOf(dir, reads).localChunks(
      DEFAULT_CHUNKER_PARAMS,
      DEFAULT_TREE_LAYOUT,
    );
    expect(reads.bytes).toBe(0);
    expect(local.size).toBeGreaterThan(100);
    expect(await readdir(chunks)).toEqual([LAYOUT]);
    const [index, list] = await publishedTree(e1);
    // Regrouped locally, the tree is byte for byte the publisher's format 2 (equal nodes).
    expect(index[4]).toBe(2);
    expect(await readFile(treePath(dir, e1.sha256))).toEqual(Buffer.concat([index, list]));

    // And a delta against a format 2 index, from the format 1 cache, moves only the edit.
    await plantFormat1();
    const v2 = edited(v1, MiB, 30_000, 98);
    await publish(v2);
    const result = await updateOnce(registry, dir);
    const app = result.plan?.artifacts[0];
    expect(app?.method).toBe('chunks');
    expect(app?.fetchBytes).toBeLessThan(30_000 + 3 * 64 * 1024);
    expect(result.bytesDownloaded).toBeLessThan(30_000 + 4 * 64 * 1024);
    expect(filesOf(await snapshotTree(join(dir, 'current')))).toEqual({ 'app.bin': sha256Hex(v2) });
  });
});
