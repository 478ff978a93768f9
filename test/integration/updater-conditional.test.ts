/**
 * A check or update with nothing new moves no manifest body (docs/PROTOCOL.md §2.7.6,
 * Conditional requests): the answer is a static file on a real nginx, which sends an ETag and
 * answers 304 to a matching If-None-Match. The kept bytes then go through the same
 * verification as a fresh answer, so an expired manifest is still refused on a 304. With nginx's
 * gzip on, the answer comes gzip-coded with a weak ETag, which the client keeps and sends back,
 * and nginx's weak comparison still answers 304 (docs/PROTOCOL.md §2.7.6, Content coding).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '#server/compose/start-server.js';
import type { RequestLogEntry } from '#server/dev/request-log.js';
import { startHostileServer, type HostileServer } from '#test/hostile-server.js';
import { startNginx, type Nginx } from '#test/nginx.js';
import { bytesOf, expectRefusal, openUpdater, tempDirs } from '#test/updater-harness.js';

const dirs = tempDirs();
let nginx: Nginx;
let gzipNginx: Nginx;
let root: string;
let signer: HostileServer;

beforeAll(async () => {
  root = await dirs.make('qa-conditional-root-');
  nginx = await startNginx(root);
  gzipNginx = await startNginx(root, { gzipJson: true });
  signer = await startHostileServer();
});

afterAll(async () => {
  await signer.close();
  await nginx.stop();
  await gzipNginx.stop();
  await dirs.cleanup();
});

/** Signs a release whose artifacts and answer are static files under /<prefix>/ on nginx. */
async function publishStatic(prefix: string, expiresAtMs?: number, count = 3): Promise<number> {
  const files = Array.from({ length: count }, (_, i) => ({
    name: `f${i}.bin`,
    content: bytesOf(4096, i + 1),
  }));
  for (const f of files) {
    await mkdir(join(root, prefix), { recursive: true });
    await writeFile(join(root, prefix, f.name), f.content);
  }
  await signer.publish({
    version: '1.0.0',
    files,
    urlFor: ({ name }) => `${nginx.baseUrl}/${prefix}/${name}`,
    ...(expiresAtMs === undefined ? {} : { expiresAtMs }),
  });
  const answer = join(root, prefix, 'api/updates/manifest');
  await mkdir(dirname(answer), { recursive: true });
  const bytes = Buffer.from(JSON.stringify(signer.envelope()));
  await writeFile(answer, bytes);
  return bytes.length;
}

async function manifestRequests(prefix: string, server = nginx) {
  const log = await server.accessLog();
  return log.filter((a) => a.uri === `/${prefix}/api/updates/manifest`);
}

/** Installs 1.0.0, then runs a check and an update that find nothing new; returns the dir. */
async function installThenNoOps(target: Parameters<typeof openUpdater>[0]): Promise<string> {
  const dir = await dirs.make('qa-conditional-');
  const u = await openUpdater(target, dir);
  try {
    expect((await u.update()).outcome).toBe('applied');
    expect((await u.check()).toVersion).toBe('1.0.0');
    expect((await u.update()).outcome).toBe('up-to-date');
  } finally {
    await u.close();
  }
  return dir;
}

describe('the manifest answer, conditionally', () => {
  it('is 304 with no body for a check and an update that change nothing', async () => {
    await publishStatic('same');
    const target = { ...signer, baseUrl: `${nginx.baseUrl}/same/` };
    await installThenNoOps(target);
    const seen = await manifestRequests('same');
    expect(seen.map((a) => a.status)).toEqual([200, 304, 304]);
    expect(seen.slice(1).map((a) => a.bodyBytesSent)).toEqual([0, 0]);
  });

  it('still refuses an expired manifest when the server answers 304 (MANIFEST_EXPIRED)', async () => {
    const expiresAtMs = Date.now() + 3_600_000;
    await publishStatic('expiring', expiresAtMs);
    const target = { ...signer, baseUrl: `${nginx.baseUrl}/expiring/` };
    const dir = await dirs.make('qa-conditional-');
    let now = Date.now();
    const u = await openUpdater(target, dir, { clock: { nowMs: () => now } });
    try {
      expect((await u.update()).outcome).toBe('applied');
      now = expiresAtMs + 1;
      await expectRefusal(u.check(), 'MANIFEST_EXPIRED');
    } finally {
      await u.close();
    }
    expect((await manifestRequests('expiring')).map((a) => a.status)).toEqual([200, 304]);
  });
});

describe('the manifest answer, gzip-coded by nginx', () => {
  it('installs from the inflated answer, keeps the weak tag and gets 304s with it', async () => {
    const size = await publishStatic('gzip', undefined, 24);
    expect(size).toBeGreaterThan(1024);
    const target = { ...signer, baseUrl: `${gzipNginx.baseUrl}/gzip/` };
    const dir = await installThenNoOps(target);
    const seen = await manifestRequests('gzip', gzipNginx);
    expect(seen.map((a) => a.status)).toEqual([200, 304, 304]);
    expect(seen[0]?.contentEncoding).toBe('gzip');
    expect(seen[0]?.bodyBytesSent).toBeLessThan(size / 2);
    // The kept answer is the inflated bytes, under the tag nginx made weak for the gzip form.
    const kept = await readFile(join(dir, '.updater', 'answer'), 'latin1');
    expect(kept.split('\n')[1]).toMatch(/^W\/"/);
    // Artifacts are never asked for coded.
    const log = await gzipNginx.accessLog();
    expect(log.filter((a) => a.uri.endsWith('.bin')).every((a) => a.contentEncoding === '')).toBe(
      true,
    );
  });
});

describe('the manifest answer, gzip-coded by the companion server', () => {
  it('installs from the inflated answer and sends the weak tag back for a 304', async () => {
    const server = await startServer({ dev: true, simulate: false });
    try {
      await server.publish({
        registry_version: '1.0.0',
        artifacts: [{ name: 'a.txt', content: bytesOf(4096, 7) }],
      });
      const minted = await server.updates.mintMachineKey();
      const target = {
        baseUrl: server.url,
        machineKey: minted.machine_key,
        pubkeyHex: server.nodePubkey,
      };
      const dir = await dirs.make('qa-conditional-');
      const u = await openUpdater(target, dir);
      try {
        expect((await u.update()).outcome).toBe('applied');
        expect((await u.update()).outcome).toBe('up-to-date');
      } finally {
        await u.close();
      }
      const res = await fetch(`${server.url}/api/dev/requests`);
      const { requests } = (await res.json()) as { requests: RequestLogEntry[] };
      const manifest = requests.filter((r) => r.url === '/api/updates/manifest');
      expect(manifest.map((r) => r.status)).toEqual([200, 304]);
      expect(manifest.map((r) => r.headers['accept-encoding'])).toEqual(['gzip', 'gzip']);
      expect(manifest[1]?.headers['if-none-match']).toMatch(/^W\/"/);
      const artifacts = requests.filter((r) => r.url.startsWith('/api/updates/artifacts/'));
      expect(artifacts.length).toBeGreaterThan(0);
      expect(artifacts.every((r) => r.headers['accept-encoding'] === 'identity')).toBe(true);
    } finally {
      await server.close();
    }
  });
});
