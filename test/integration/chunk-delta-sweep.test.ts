/**
 * The in-order pass that finishes a chunked download (docs/UPDATER.md §9.1, chunks/sweep.ts),
 * end to end through nginx: a held blob damaged on disk after planning costs a re-fetch of the
 * chunks it no longer holds (never a wrong byte), and a block repeated inside the new version
 * is fetched once and copied. In both the promoted blob is exactly the signed one.
 */
import { chmod, open, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningServer } from '#server/compose/start-server.js';
import { BLOB_MTIME_S } from '#node/blobs/intact-blob.js';
import type { ManifestArtifact } from '#protocol/manifest.js';
import { runChunked, stateWithBlobs } from '#test/chunk-delta-kit.js';
import { startChunkStage, type ChunkStage } from '#test/chunk-stage.js';
import { sha256Hex } from '#test/hostile-server.js';
import { bytesOf, tempDirs } from '#test/updater-harness.js';

const MiB = 1024 * 1024;
const dirs = tempDirs();
let server: RunningServer;
let stage: ChunkStage;

beforeAll(async () => {
  const options = { wwwPrefix: 'chunk-sweep-www-', cdnPath: 'a', server: { dev: true } };
  stage = await startChunkStage(dirs, options);
  ({ server } = stage);
});

afterAll(async () => {
  await stage.close();
  await dirs.cleanup();
});

async function publish(content: Uint8Array): Promise<ManifestArtifact> {
  const [entry] = await stage.publish([{ name: 'app.bin', content }]);
  return entry as ManifestArtifact;
}

const concat = (...parts: Uint8Array[]): Uint8Array => Buffer.concat(parts);

it('re-fetches the chunks of a held blob damaged after planning, and only those', async () => {
  const v1 = bytesOf(3 * MiB, 61);
  const v2 = Uint8Array.from(v1);
  v2.set(bytesOf(10_000, 62), 100_000);
  const entry = await publish(v2);
  const dir = await dirs.make('chunk-sweep-');
  const blobs = await stateWithBlobs(dir, [v1]);
  const damage = async (): Promise<void> => {
    // 20 bytes overwritten in the middle of the held blob, its sentinel mtime put back.
    const path = join(blobs, sha256Hex(v1));
    await chmod(path, 0o644);
    const handle = await open(path, 'r+');
    await handle.write(new Uint8Array(20).fill(0xee), 0, 20, 2 * MiB);
    await handle.close();
    await chmod(path, 0o444);
    await utimes(path, BLOB_MTIME_S, BLOB_MTIME_S);
  };
  const run = await runChunked({
    dir,
    baseUrl: server.url,
    artifact: entry,
    beforeApply: damage,
  });
  expect(run.blob && sha256Hex(run.blob)).toBe(sha256Hex(v2));
  const planned = run.plan?.delta.fetchBytes ?? 0;
  // The edit's chunks plus the one or two damaged chunks (at most 64 KiB each), no more.
  expect(run.networkBytes).toBeGreaterThan(planned + 4096);
  expect(run.networkBytes).toBeLessThan(planned + 2 * 64 * 1024 + 16 * 1024);
});

it('fetches a block repeated inside the new version once and copies it', async () => {
  const v1 = bytesOf(3 * MiB, 71);
  const block = bytesOf(300_000, 72);
  const v2 = concat(
    v1.subarray(0, MiB),
    block,
    v1.subarray(MiB, 2 * MiB),
    block,
    v1.subarray(2 * MiB),
  );
  const entry = await publish(v2);
  const dir = await dirs.make('chunk-sweep-');
  await stateWithBlobs(dir, [v1]);
  const run = await runChunked({ dir, baseUrl: server.url, artifact: entry });
  expect(run.blob && sha256Hex(run.blob)).toBe(sha256Hex(v2));
  const repeats = run.plan?.delta.ops.filter((op) => op.kind === 'repeat') ?? [];
  expect(repeats.length).toBeGreaterThan(5);
  expect(run.networkBytes).toBeLessThan(300_000 + 4 * 64 * 1024 + 16 * 1024);
});
