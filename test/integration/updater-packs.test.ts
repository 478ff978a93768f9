/**
 * Packs through the updater against the real server (docs/PROTOCOL.md §2.8, docs/UPDATER.md
 * §10): the server publishes with `artifact_base_url` on nginx, a fresh install of many small
 * files takes a few range requests, an update of 12 changed files takes at most 3 requests
 * after the manifest, a tampered pack member is refused and fetched whole, and a server that
 * ignores ranges gets one whole-file GET per artifact.
 */
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManifestArtifact } from '#protocol/manifest.js';
import { startServer, type RunningServer } from '#server/compose/start-server.js';
import { startNginx, type Nginx } from '#test/nginx.js';
import { serveStaticFiles } from '#test/static-files.js';
import { filesOf, snapshotTree } from '#test/tree-snapshot.js';
import {
  bytesOf,
  cliArgs,
  runCli,
  tempDirs,
  updateOnce,
  type UpdaterServer,
} from '#test/updater-harness.js';

const COUNT = 400;
const dirs = tempDirs();
let server: RunningServer;
let nginx: Nginx;
let registry: UpdaterServer;
let version = 0;

type Files = { name: string; content: Uint8Array }[];

beforeAll(async () => {
  server = await startServer({ simulate: false });
  nginx = await startNginx(await dirs.make('packs-www-'));
  const { machine_key } = await server.updates.mintMachineKey();
  registry = { baseUrl: server.url, machineKey: machine_key, pubkeyHex: server.nodePubkey };
});

afterAll(async () => {
  await nginx.stop();
  await server.close();
  await dirs.cleanup();
});

/** Copies every blob an entry names (the artifact and its pack) to `to`. */
async function copyBlobs(entries: readonly ManifestArtifact[], to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  const digests = new Set(entries.flatMap((e) => [e.sha256, ...(e.pack ? [e.pack.sha256] : [])]));
  for (const sha of digests) {
    await copyFile(join(server.dataDir, 'blobs', sha.slice(0, 2), sha), join(to, sha));
  }
}

async function publish(files: Files, base: string, www: string): Promise<ManifestArtifact[]> {
  version++;
  const result = await server.publish({
    registry_version: `1.0.${version}`,
    artifacts: files,
    artifact_base_url: `${base}/cdn`,
  });
  await copyBlobs(result.artifacts, join(www, 'cdn'));
  return [...result.artifacts];
}

const smallFiles = (seed: number): Files =>
  Array.from({ length: COUNT }, (_, i) => ({
    name: `lib/m${String(i).padStart(4, '0')}.js`,
    content: bytesOf(1024 + ((i * 37) % 3072), seed * 100_000 + i),
  }));

/** Requests nginx logged after `from` (the manifest goes to the server, not to nginx). */
async function requestsSince(from: number): Promise<string[]> {
  return (await nginx.accessLog()).slice(from).map((r) => `${r.status} ${r.uri} ${r.range}`);
}

async function expectInstalled(dir: string, files: Files): Promise<void> {
  const tree = await snapshotTree(join(dir, 'current'));
  expect(Object.keys(filesOf(tree))).toHaveLength(files.length);
  for (const f of files.slice(0, 20)) {
    expect(await readFile(join(dir, 'current', f.name))).toEqual(Buffer.from(f.content));
  }
}

describe('packs in update()', () => {
  it('installs many small files with a few range requests, then 12 changed in at most 3', async () => {
    const v1 = smallFiles(1);
    const entries = await publish(v1, nginx.baseUrl, nginx.root);
    expect(entries.every((e) => e.pack !== undefined)).toBe(true);
    const packs = new Set(entries.map((e) => e.pack?.sha256)).size;
    const dir = await dirs.make('packs-client-');
    const before = (await nginx.accessLog()).length;
    const result = await updateOnce(registry, dir);
    expect(result.outcome).toBe('applied');
    const fresh = await requestsSince(before);
    expect(fresh.every((r) => r.startsWith('206 '))).toBe(true);
    expect(fresh.length).toBeLessThanOrEqual(packs);
    await expectInstalled(dir, v1);

    const v2 = v1.map((f, i) => (i % 33 === 5 ? { ...f, content: bytesOf(2048, 7_000 + i) } : f));
    expect(v2.filter((f, i) => f.content !== v1[i]?.content)).toHaveLength(12);
    await publish(v2, nginx.baseUrl, nginx.root);
    const mid = (await nginx.accessLog()).length;
    expect((await updateOnce(registry, dir)).outcome).toBe('applied');
    const update = await requestsSince(mid);
    expect(update.length).toBeLessThanOrEqual(3);
    await expectInstalled(dir, v2);
  });

  it('refuses a tampered member and fetches it whole; the other members come from the pack', async () => {
    const files = smallFiles(2);
    const entries = await publish(files, nginx.baseUrl, nginx.root);
    const victim = entries[10] as ManifestArtifact;
    const pack = victim.pack as NonNullable<ManifestArtifact['pack']>;
    const packPath = join(nginx.root, 'cdn', pack.sha256);
    const bytes = await readFile(packPath);
    bytes[pack.offset + 3] = (bytes[pack.offset + 3] ?? 0) ^ 0xff;
    await writeFile(packPath, bytes);
    const dir = await dirs.make('packs-tamper-');
    const before = (await nginx.accessLog()).length;
    expect((await updateOnce(registry, dir)).outcome).toBe('applied');
    const log = await requestsSince(before);
    // The member is refused twice (the answer, then the same range asked again), then left out.
    expect(log).toContain(`200 /cdn/${victim.sha256} `);
    expect(log.filter((r) => r.startsWith('206 '))).toHaveLength(3);
    expect(log.filter((r) => r.startsWith('200 '))).toHaveLength(1);
    await expectInstalled(dir, files);
  });

  it('fetches every artifact whole from a server that ignores ranges', async () => {
    const www = await dirs.make('packs-plain-');
    const plain = await serveStaticFiles(www);
    try {
      const files = smallFiles(3).slice(0, 40);
      await publish(files, plain.baseUrl, www);
      const dir = await dirs.make('packs-plain-client-');
      expect((await updateOnce(registry, dir)).outcome).toBe('applied');
      const artifacts = plain.requested.filter((p) => !files.some((f) => p.endsWith(f.name)));
      // One request per pack (answered 200 and dropped), then one whole GET per artifact.
      expect(artifacts.length).toBeLessThanOrEqual(files.length + 2);
      await expectInstalled(dir, files);
    } finally {
      await plain.close();
    }
  });

  it('keeps the members a kill -9 left durable: the next run fetches only the rest', async () => {
    const files = smallFiles(4);
    await publish(files, nginx.baseUrl, nginx.root);
    const total = files.reduce((sum, f) => sum + f.content.length, 0);
    const dir = await dirs.make('packs-crash-');
    const crashed = await runCli(cliArgs('update', { ...registry, dir }), {
      env: { UPDATER_TEST_CRASH_AT: 'blobs-batch-synced' },
      timeoutMs: 60_000,
    });
    expect(crashed.signal, 'the child must reach a synced batch and die there').toBe('SIGKILL');
    const result = await updateOnce(registry, dir);
    expect(result.outcome).toBe('applied');
    expect(result.bytesDownloaded).toBeGreaterThan(0);
    expect(result.bytesDownloaded).toBeLessThan(total);
    await expectInstalled(dir, files);
  });
});
