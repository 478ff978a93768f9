/**
 * Signed chunk-level deltas end to end (docs/UPDATER.md §9): the companion server publishes
 * artifacts with their chunk indexes, nginx serves the blobs under `artifact_base_url`
 * (plain static files), and the updater's chunked path assembles the new version from the
 * chunks it holds and verified ranges. Files are a few MiB so the suite stays fast.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '#server/compose/start-server.js';
import type { ManifestArtifact } from '#protocol/manifest.js';
import { copyEntryBlobs, runChunked, stateWithBlobs } from '#test/chunk-delta-kit.js';
import { sha256Hex } from '#test/hostile-server.js';
import { startNginx, type Nginx } from '#test/nginx.js';
import { bytesOf, tempDirs } from '#test/updater-harness.js';

const MiB = 1024 * 1024;
const dirs = tempDirs();
let server: RunningServer;
let nginx: Nginx;
let root: string;
let version = 0;

beforeAll(async () => {
  server = await startServer({ dev: true });
  root = await dirs.make('chunk-delta-www-');
  nginx = await startNginx(root);
});

afterAll(async () => {
  await nginx.stop();
  await server.close();
  await dirs.cleanup();
});

const concat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

/** Publishes `files` with artifact_base_url = nginx /a, copying the blobs to /a and /b. */
async function publish(
  files: { name: string; content: Uint8Array }[],
): Promise<ManifestArtifact[]> {
  version++;
  const result = await server.publish({
    registry_version: `1.0.${version}`,
    artifacts: files,
    artifact_base_url: `${nginx.baseUrl}/a`,
  });
  for (const entry of result.artifacts) {
    await copyEntryBlobs(server.dataDir, entry, join(root, 'a'));
    await copyEntryBlobs(server.dataDir, entry, join(root, 'b'));
  }
  return [...result.artifacts];
}

async function requestsSince(count: number) {
  return (await nginx.accessLog()).slice(count);
}

describe('chunk indexes through the companion server artifact route', () => {
  it('fetches the changed chunks as multipart/byteranges from the authenticated route', async () => {
    const mint = await fetch(`${server.url}/api/demo-key/mint`, { method: 'POST' });
    const { machine_key: machineKey } = (await mint.json()) as { machine_key: string };
    const v1 = bytesOf(3 * MiB, 71);
    const v2 = Uint8Array.from(v1);
    for (const at of [100_000, 1_500_000, 2_900_000]) v2.set(bytesOf(3000, at), at);
    version++;
    const result = await server.publish({
      registry_version: `1.0.${version}`,
      artifacts: [{ name: 'app.bin', content: v2 }],
    });
    const entry = result.artifacts[0] as ManifestArtifact;
    expect(entry.chunk_index?.url).toBe(`api/updates/artifacts/${entry.chunk_index?.sha256}`);
    const dir = await dirs.make('chunk-delta-state-');
    await stateWithBlobs(dir, [v1]);
    const since = server.requests.list().at(-1)?.seq ?? 0;
    const run = await runChunked({ dir, baseUrl: server.url, machineKey, artifact: entry });
    expect(run.blob && sha256Hex(run.blob)).toBe(sha256Hex(v2));
    expect(run.failures).toEqual([]);
    // All the changed chunks in one request, answered 206 multipart/byteranges.
    const ranged = server.requests.list(since).filter((r) => r.url.endsWith(entry.sha256));
    expect(ranged.map((r) => r.status)).toEqual([206]);
    expect(run.plan?.delta.fetchBytes).toBeLessThan(6 * 64 * 1024);
  });
});

describe('chunk indexes through artifact_base_url on nginx', () => {
  it('publishes a chunk index for a large artifact and none for a small one', async () => {
    const [big, small] = await publish([
      { name: 'big.bin', content: bytesOf(3 * MiB, 1) },
      { name: 'small.txt', content: bytesOf(1000, 2) },
    ]);
    expect(big?.chunk_index?.url).toBe(`${nginx.baseUrl}/a/${big?.chunk_index?.sha256}`);
    expect(big?.chunk_index?.list_url).toMatch(new RegExp(`^${nginx.baseUrl}/a/[0-9a-f]{64}$`));
    expect(small?.name).toBe('small.txt');
    expect(small?.chunk_index).toBeUndefined();
  });

  it('fetches only the changed chunks of an in-place edit, each verified', async () => {
    const v1 = bytesOf(4 * MiB, 11);
    const v2 = Uint8Array.from(v1);
    v2.set(bytesOf(100_000, 12), 2 * MiB);
    const [entry] = await publish([{ name: 'app.bin', content: v2 }]);
    const dir = await dirs.make('chunk-delta-state-');
    await stateWithBlobs(dir, [v1]);
    const before = (await nginx.accessLog()).length;
    const run = await runChunked({ dir, baseUrl: server.url, artifact: entry as ManifestArtifact });
    expect(run.blob && sha256Hex(run.blob)).toBe(sha256Hex(v2));
    const log = await requestsSince(before);
    const served = log.reduce((n, e) => n + e.bodyBytesSent, 0);
    expect(run.plan?.delta.fetchBytes).toBeLessThan(100_000 + 3 * 64 * 1024);
    expect(served).toBeLessThan(100_000 + 3 * 64 * 1024 + 16 * 1024);
    expect(log.every((e) => e.status === 200 || e.status === 206)).toBe(true);
  });

  it('still reuses nearly all chunks after an insertion near the start', async () => {
    const v1 = bytesOf(4 * MiB, 21);
    const v2 = concat(v1.subarray(0, 50_000), bytesOf(64 * 1024, 22), v1.subarray(50_000));
    const [entry] = await publish([{ name: 'app.bin', content: v2 }]);
    const dir = await dirs.make('chunk-delta-state-');
    await stateWithBlobs(dir, [v1]);
    const run = await runChunked({ dir, baseUrl: server.url, artifact: entry as ManifestArtifact });
    expect(run.blob && sha256Hex(run.blob)).toBe(sha256Hex(v2));
    expect(run.plan?.delta.reuseBytes).toBeGreaterThan(v2.length - 64 * 1024 - 4 * 64 * 1024);
    expect(run.networkBytes).toBeLessThan(64 * 1024 + 4 * 64 * 1024 + 16 * 1024);
  });

  it('reuses chunks across artifacts and versions: a new file built from two held ones', async () => {
    const a = bytesOf(2 * MiB, 31);
    const b = bytesOf(2 * MiB, 32);
    const [entry] = await publish([{ name: 'joined.bin', content: concat(b, a) }]);
    const dir = await dirs.make('chunk-delta-state-');
    await stateWithBlobs(dir, [a, b]);
    const run = await runChunked({ dir, baseUrl: server.url, artifact: entry as ManifestArtifact });
    expect(run.blob && sha256Hex(run.blob)).toBe(sha256Hex(concat(b, a)));
    const sources = new Set(
      run.plan?.delta.ops.flatMap((op) => (op.kind === 'local' ? [op.from.blob] : [])),
    );
    expect(sources).toEqual(new Set([sha256Hex(a), sha256Hex(b)]));
    expect(run.plan?.delta.fetchBytes).toBeLessThan(3 * 64 * 1024);
  });

  it('rejects a tampered range at once and fetches it again from the next mirror', async () => {
    const v1 = bytesOf(3 * MiB, 41);
    const v2 = Uint8Array.from(v1);
    v2.set(bytesOf(200_000, 42), MiB);
    const [entry] = await publish([{ name: 'app.bin', content: v2 }]);
    if (entry === undefined) throw new Error('no entry');
    // The signed URL's host serves a copy with one byte flipped inside the changed region.
    const tampered = Uint8Array.from(v2);
    tampered[MiB + 100_000] = (tampered[MiB + 100_000] as number) ^ 1;
    await writeFile(join(root, 'a', entry.sha256), tampered);
    const dir = await dirs.make('chunk-delta-state-');
    await stateWithBlobs(dir, [v1]);
    const before = (await nginx.accessLog()).length;
    const run = await runChunked({
      dir,
      baseUrl: server.url,
      artifact: entry,
      mirrors: [`${nginx.baseUrl}/b/`],
    });
    expect(run.blob && sha256Hex(run.blob)).toBe(sha256Hex(v2));
    expect(run.failures).toEqual([
      expect.objectContaining({ code: 'HASH_MISMATCH', url: `${nginx.baseUrl}/a/${entry.sha256}` }),
    ]);
    const ranges = (await requestsSince(before)).filter((e) => e.uri.endsWith(entry.sha256));
    const fromMirror = ranges.filter((e) => e.uri.startsWith('/b/'));
    expect(fromMirror.length).toBe(1);
    // The mirror is asked only from the refused chunk on, never for what already verified.
    const start = Number(/^bytes=(\d+)-/.exec(fromMirror[0]?.range ?? '')?.[1]);
    expect(start).toBeGreaterThan(MiB);
    expect(start).toBeLessThanOrEqual(MiB + 100_000);
  });

  it('refuses an index that does not match the signed digest and plans nothing from it', async () => {
    const v1 = bytesOf(3 * MiB, 51);
    const v2 = Uint8Array.from(v1);
    v2.set(bytesOf(1000, 52), 10);
    const [entry] = await publish([{ name: 'app.bin', content: v2 }]);
    const ref = entry?.chunk_index;
    if (entry === undefined || ref === undefined) throw new Error('no index');
    const index = await readFile(join(root, 'a', ref.sha256));
    index[index.length - 1] = (index[index.length - 1] as number) ^ 1;
    await writeFile(join(root, 'a', ref.sha256), index);
    await writeFile(join(root, 'b', ref.sha256), index);
    const dir = await dirs.make('chunk-delta-state-');
    await stateWithBlobs(dir, [v1]);
    const before = (await nginx.accessLog()).length;
    const refused = await runChunked({ dir, baseUrl: server.url, artifact: entry });
    expect(refused.plan).toBeUndefined();
    expect(refused.failures.map((f) => f.code)).toEqual(['CHUNK_INDEX_MISMATCH']);
    // Nothing was planned from it: no chunk list section and no artifact range was asked for.
    const asked = (await requestsSince(before)).map((e) => e.uri);
    expect(asked).toEqual([`/a/${ref.sha256}`]);

    // A mirror with the right index is used instead.
    await copyEntryBlobs(server.dataDir, entry, join(root, 'b'));
    const mirrored = await runChunked({
      dir,
      baseUrl: server.url,
      artifact: entry,
      mirrors: [`${nginx.baseUrl}/b`],
    });
    expect(mirrored.failures.map((f) => f.code)).toEqual(['CHUNK_INDEX_MISMATCH']);
    expect(mirrored.blob && sha256Hex(mirrored.blob)).toBe(sha256Hex(v2));
  });
});
