/**
 * rotate-keys (docs/PROTOCOL.md §2.7.4, §2.7.8): freshness, release and root rotations written
 * to a data directory, picked up by a running server, followed by a client from the pinned key.
 */
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildApp, type BuiltApp } from '#server/compose/app.js';
import type { RotateKeysOptions } from '#server/updates/keys/rotate-keys.js';
import { rotateIn } from '#test/rotate-kit.js';
import { checkAnswer } from '#test/answer-check.js';
import { newKeys } from '#test/trust-kit.js';
import { bearer, mintKey } from '#test/server-harness.js';

const T0 = Date.parse('2026-03-01T00:00:00.000Z');
let dir: string;
let built: BuiltApp;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rotate-'));
  built = await buildApp(
    { dataDir: dir, logLevel: 'silent', simulate: false, dev: true },
    { now: () => T0 },
  );
  await built.app.ready();
});
afterEach(async () => {
  await built.app.close();
  await rm(dir, { recursive: true, force: true });
});

const rotate = (change: Partial<RotateKeysOptions>) => rotateIn(dir, change, () => T0);

async function served(version: number) {
  const key = await mintKey(built.app);
  let bytes: Buffer = Buffer.alloc(0);
  await vi.waitFor(
    async () => {
      const res = await built.app.inject({
        method: 'GET',
        url: '/api/updates/manifest',
        headers: bearer(key),
      });
      bytes = res.rawPayload;
      const links = (JSON.parse(res.body) as { keys: unknown[] }).keys;
      expect(links).toHaveLength(version);
    },
    { timeout: 5000, interval: 25 },
  );
  return checkAnswer(bytes, built.modules.updates.api.nodePubkey, T0);
}

describe('rotate-keys', () => {
  it('rotates the freshness key: a running server signs with the new one', async () => {
    const before = await served(1);
    const result = await rotate({ newFreshnessKey: true });
    expect(result.version).toBe(2);
    const after = await served(2);
    expect(after.keySet.freshness.keys[0]?.hex).toBe(result.freshness.keys[0]);
    expect(after.retired).toContain(before.keySet.freshness.keys[0]?.keyid);
    await expect(access(join(dir, 'freshness-key.next.json'))).rejects.toThrow();
  });

  it('rotates the release key (development path): the current release is co-signed first', async () => {
    await built.modules.updates.api.publish({ registry_version: '1.0.0', artifacts: [] });
    const result = await rotate({ newReleaseKey: true });
    const after = await served(2);
    expect(after.release.registry_version).toBe('1.0.0');
    expect(after.releaseKeyids).toEqual([after.keySet.release.keys[0]?.keyid]);
    expect(after.keySet.release.keys.map((k) => k.hex)).toEqual(result.release.keys);
    const next = await built.modules.updates.api.publish({
      registry_version: '1.1.0',
      artifacts: [],
    });
    expect(next.keyid).toBe(after.keySet.release.keys[0]?.keyid);
  });

  it('refuses offline release keys that have not co-signed the current release', async () => {
    const offline = newKeys(2).map((k) => k.hex);
    await expect(rotate({ releasePubkeys: offline, releaseThreshold: 2 })).rejects.toMatchObject({
      code: 'KEY_CHAIN_INVALID',
    });
  });

  it('rotates the root (2 of 3 new keys), signed by the old root and the new ones', async () => {
    const files = [1, 2, 3].map((i) => join(dir, `root-${i}.json`));
    const result = await rotate({ newRootKeyFiles: files, rootThreshold: 2 });
    expect(result.root.threshold).toBe(2);
    const after = await served(2);
    expect(after.keySet.root.keys).toHaveLength(3);
    // Then the new root rotates again, with two of its three keys.
    await rotate({ rootKeyFiles: files.slice(0, 2), newFreshnessKey: true });
    expect((await served(3)).keySet.version).toBe(3);
  });

  it('dates TUF root N+1 by the clock it is given, not the real one', async () => {
    await rotate({ newFreshnessKey: true });
    const root = JSON.parse(await readFile(join(dir, 'tuf', '2.root.json'), 'utf8')) as {
      signed: { version: number; expires: string };
    };
    expect(root.signed.version).toBe(2);
    // docs/PROTOCOL.md §TUF repository, Expiry defaults: root lives 365 days.
    expect(Date.parse(root.signed.expires)).toBe(T0 + 365 * 24 * 3600 * 1000);
  });

  it('refuses a rotation signed below the current root threshold (KEY_CHAIN_INVALID)', async () => {
    const files = [1, 2].map((i) => join(dir, `root-${i}.json`));
    await rotate({ newRootKeyFiles: files, rootThreshold: 2 });
    await expect(
      rotate({ rootKeyFiles: files.slice(0, 1), newFreshnessKey: true }),
    ).rejects.toMatchObject({ code: 'KEY_CHAIN_INVALID' });
  });
});
