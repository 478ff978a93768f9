/**
 * A check or update with nothing new moves no manifest body (docs/PROTOCOL.md §2.7.6,
 * Conditional requests): the answer is a static file on a real nginx, which sends an ETag and
 * answers 304 to a matching If-None-Match. The kept bytes then go through the same
 * verification as a fresh answer, so an expired manifest is still refused on a 304.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostileServer, type HostileServer } from '../helpers/hostile-server.js';
import { startNginx, type Nginx } from '../helpers/nginx.js';
import { bytesOf, expectRefusal, openUpdater, tempDirs } from '../helpers/updater-harness.js';

const dirs = tempDirs();
let nginx: Nginx;
let root: string;
let signer: HostileServer;

beforeAll(async () => {
  root = await dirs.make('qa-conditional-root-');
  nginx = await startNginx(root);
  signer = await startHostileServer();
});

afterAll(async () => {
  await signer.close();
  await nginx.stop();
  await dirs.cleanup();
});

/** Signs a release whose artifacts and answer are static files under /<prefix>/ on nginx. */
async function publishStatic(prefix: string, expiresAtMs?: number): Promise<void> {
  const files = [0, 1, 2].map((i) => ({ name: `f${i}.bin`, content: bytesOf(4096, i + 1) }));
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
  await writeFile(answer, JSON.stringify(signer.envelope()));
}

async function manifestRequests(prefix: string) {
  const log = await nginx.accessLog();
  return log.filter((a) => a.uri === `/${prefix}/api/updates/manifest`);
}

describe('the manifest answer, conditionally', () => {
  it('is 304 with no body for a check and an update that change nothing', async () => {
    await publishStatic('same');
    const target = { ...signer, baseUrl: `${nginx.baseUrl}/same/` };
    const dir = await dirs.make('qa-conditional-');
    const u = await openUpdater(target, dir);
    try {
      expect((await u.update()).outcome).toBe('applied');
      expect((await u.check()).toVersion).toBe('1.0.0');
      expect((await u.update()).outcome).toBe('up-to-date');
    } finally {
      await u.close();
    }
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
