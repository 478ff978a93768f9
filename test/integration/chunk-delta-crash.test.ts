/**
 * kill -9 in the middle of a chunked download, then a resume (docs/UPDATER.md §9): every chunk
 * the record holds at the kill is kept (re-hashed, not re-fetched), nothing unverified is
 * trusted, and the blob that comes out is exactly the signed one.
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type RunningServer } from '#server/compose/start-server.js';
import type { ManifestArtifact } from '#protocol/manifest.js';
import { copyEntryBlobs, runChunked, stateWithBlobs } from '#test/chunk-delta-kit.js';
import { sha256Hex } from '#test/hostile-server.js';
import { startNginx, type Nginx } from '#test/nginx.js';
import { bytesOf, REPO_ROOT, tempDirs } from '#test/updater-harness.js';

const MiB = 1024 * 1024;
const dirs = tempDirs();
let server: RunningServer;
let nginx: Nginx;
let root: string;

beforeAll(async () => {
  server = await startServer({ dev: true });
  root = await dirs.make('chunk-crash-www-');
  nginx = await startNginx(root);
});

afterAll(async () => {
  await nginx.stop();
  await server.close();
  await dirs.cleanup();
});

/**
 * Publishes `next` as `version` with its blobs served by nginx, and a state directory that
 * holds `held` and the entry file the child process reads.
 */
async function prepare(version: string, next: Uint8Array, held: Uint8Array) {
  const result = await server.publish({
    registry_version: version,
    artifacts: [{ name: 'app.bin', content: next }],
    artifact_base_url: `${nginx.baseUrl}/a`,
  });
  const entry = result.artifacts[0] as ManifestArtifact;
  await copyEntryBlobs(server.dataDir, entry, join(root, 'a'));
  const dir = await dirs.make('chunk-crash-state-');
  await stateWithBlobs(dir, [held]);
  const entryPath = join(dir, 'entry.json');
  await writeFile(entryPath, JSON.stringify(entry));
  return { entry, dir, entryPath };
}

function child(args: string[]): Promise<NodeJS.Signals | null> {
  const script = join(REPO_ROOT, 'test', 'helpers', 'chunk-delta-child.ts');
  return new Promise((resolve, reject) => {
    // In-process TypeScript (no tsx wrapper process), so the signal is the child's own.
    const proc = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: REPO_ROOT,
      stdio: 'ignore',
    });
    proc.once('error', reject);
    proc.once('exit', (_code, signal) => resolve(signal));
  });
}

/** Chunks in the record file: [offset, length] (after its 38-byte header, 44 bytes each). */
async function recorded(dir: string, sha: string): Promise<[number, number][]> {
  const bytes = await readFile(join(dir, '.updater', 'partial', `${sha}.chunks`));
  const out: [number, number][] = [];
  for (let at = 38; at + 44 <= bytes.length; at += 44) {
    out.push([
      bytes.readUInt32BE(at) * 2 ** 32 + bytes.readUInt32BE(at + 4),
      bytes.readUInt32BE(at + 8),
    ]);
  }
  return out;
}

it('resumes after kill -9 mid-delta without fetching any recorded chunk again', async () => {
  const v1 = bytesOf(3 * MiB, 61);
  // New, old, new: the delta fetches two separate regions, so the kill lands between ranges.
  const v2 = new Uint8Array(3 * MiB);
  v2.set(bytesOf(MiB, 62), 0);
  v2.set(v1.subarray(MiB, 2 * MiB), MiB);
  v2.set(bytesOf(MiB, 63), 2 * MiB);
  const { entry, dir, entryPath } = await prepare('1.0.0', v2, v1);

  expect(await child([dir, server.url, entryPath, '40'])).toBe('SIGKILL');
  const kept = await recorded(dir, entry.sha256);
  expect(kept.length).toBeGreaterThanOrEqual(40);
  const before = (await nginx.accessLog()).length;

  const resumed = await runChunked({ dir, baseUrl: server.url, artifact: entry });
  expect(resumed.blob && sha256Hex(resumed.blob)).toBe(sha256Hex(v2));
  const ranges = (await nginx.accessLog())
    .slice(before)
    .filter((e) => e.uri === `/a/${entry.sha256}`)
    // One request may ask several ranges (multipart/byteranges): every one counts.
    .flatMap((e) => e.range.replace(/^bytes=/, '').split(','))
    .map((r) => r.split('-').map(Number))
    .map(([a, b]) => [a as number, (b as number) + 1]);
  expect(ranges.length).toBeGreaterThan(0);
  for (const [start, end] of ranges) {
    for (const [offset, length] of kept) {
      // No resumed range touches a chunk recorded before the kill.
      expect(offset + length <= (start as number) || offset >= (end as number)).toBe(true);
    }
  }
  const keptBytes = kept.reduce((n, [, length]) => n + length, 0);
  expect(resumed.plan?.delta.fetchBytes).toBeGreaterThan(0);
  expect(resumed.networkBytes).toBeLessThan(
    (resumed.plan?.delta.fetchBytes ?? 0) + (resumed.plan?.metadataBytes ?? 0) - keptBytes + MiB,
  );
});

it('resumes after kill -9 mid-copy of held chunks, keeping the blocks copied before it', async () => {
  // Held, new, held: one or two chunks fetched, then 2 MiB copy blocks (chunks/sweep.ts).
  const v1 = bytesOf(6 * MiB, 81);
  const v2 = Uint8Array.from(v1);
  v2.set(bytesOf(10_000, 82), 6 * MiB - 100_000);
  const { entry, dir, entryPath } = await prepare('1.0.1', v2, v1);

  // The fetched chunk is recorded first (one record), then one record per 2 MiB copy block:
  // the kill lands after the second block, mid-copy.
  expect(await child([dir, server.url, entryPath, '3'])).toBe('SIGKILL');
  const kept = await recorded(dir, entry.sha256);
  const heldKept = kept.filter(([offset]) => offset < 6 * MiB - 100_000 - 64 * 1024);
  const heldBytes = heldKept.reduce((n, [, length]) => n + length, 0);
  // At least one whole copy block is recorded, and not the whole artifact.
  expect(heldBytes).toBeGreaterThan(MiB);
  expect(heldBytes).toBeLessThan(5 * MiB);

  const resumed = await runChunked({ dir, baseUrl: server.url, artifact: entry });
  expect(resumed.blob && sha256Hex(resumed.blob)).toBe(sha256Hex(v2));
  expect(resumed.networkBytes).toBeLessThan(
    (resumed.plan?.delta.fetchBytes ?? 0) + (resumed.plan?.metadataBytes ?? 0) + 64 * 1024,
  );
});
