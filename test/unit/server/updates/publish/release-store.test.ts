import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ServerClock } from '#server/platform/clock.js';
import { openUpdateState } from '#server/updates/update-state.js';
import { ReleaseStoreError } from '#server/updates/publish/release-store.js';
import { DEFAULT_OPTIONS } from '#server/compose/options.js';
import { createRandom } from '#server/platform/random.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'release-store-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const open = (nodeKeyFile?: string) =>
  openUpdateState({
    dataDir: dir,
    options: { ...DEFAULT_OPTIONS, dataDir: dir, nodeKeyFile },
    clock: new ServerClock(() => Date.parse('2026-01-01T00:00:00Z')),
    random: createRandom(undefined),
  });

describe('release store', () => {
  it('starts a fresh data directory with a signed empty release 0.0.0', async () => {
    const state = await open();
    expect(state.releases.current?.manifest.registry_version).toBe('0.0.0');
    expect(state.releases.current?.manifest.artifacts).toEqual([]);
  });

  it('reloads the highest version as current after a restart', async () => {
    const first = await open();
    await first.publisher.publish({ registry_version: '1.10.0', artifacts: [] });
    await first.publisher
      .publish({ registry_version: '1.9.0-rc.1', artifacts: [] })
      .catch(() => undefined);
    const again = await open();
    expect(again.releases.current?.manifest.registry_version).toBe('1.10.0');
    expect(again.releases.highestVersion).toBe('1.10.0');
  });

  it('keeps the signed notes of the current release, across a restart (TUF targets carry them)', async () => {
    const first = await open();
    const notes = '# 1.0.0\n\n- first\n';
    await first.publisher.publish({ registry_version: '1.0.0', artifacts: [], notes });
    expect(first.releases.current?.manifest.notes).toBe(notes);
    const again = await open();
    expect(again.releases.current?.manifest.notes).toBe(notes);
  });

  it('refuses to start when a stored release was tampered with', async () => {
    const first = await open();
    await first.publisher.publish({ registry_version: '1.0.0', artifacts: [] });
    const file = join(dir, 'releases', '1.0.0.json');
    const env = JSON.parse(await readFile(file, 'utf8')) as { payload: string };
    const payload = Buffer.from(env.payload, 'base64').toString().replace('1.0.0', '9.0.0');
    env.payload = Buffer.from(payload).toString('base64');
    await writeFile(file, JSON.stringify(env));
    await expect(open()).rejects.toBeInstanceOf(ReleaseStoreError);
  });

  it('refuses to start with a node key that is no root of the stored key chain', async () => {
    await open();
    await writeFile(join(dir, 'other-key.json'), 'ab'.repeat(32));
    await expect(open(join(dir, 'other-key.json'))).rejects.toMatchObject({
      code: 'KEY_CHAIN_INVALID',
    });
  });

  it('refuses to start with a --node-key file that does not exist once a chain is stored', async () => {
    await open();
    await expect(open(join(dir, 'missing-key.json'))).rejects.toMatchObject({
      code: 'KEY_CHAIN_INVALID',
    });
  });
});

describe('release store reload racing a clear (the watcher during a dev reset)', () => {
  it('never brings back a release that a clear removed', async () => {
    const state = await open();
    let resurrected = 0;
    // The race is timing-dependent, so it is run several times on many files: before the fix
    // a reload that read a file before the clear deleted it made that release current again.
    for (let round = 0; round < 8; round++) {
      for (let v = 1; v <= 15; v++) {
        await state.publisher.publish({ registry_version: `${round}.${v}.0`, artifacts: [] });
      }
      const reloading = state.releases.load();
      await state.releases.clear();
      await reloading;
      if (state.releases.current !== undefined) resurrected++;
      expect(state.releases.highestVersion).toBeUndefined();
    }
    expect(resurrected).toBe(0);
  });
});

describe('a running server and the publish CLI on the same data directory', () => {
  it('serves a release published by another process without a restart', async () => {
    const { buildApp } = await import('#server/compose/app.js');
    const built = await buildApp({ dataDir: dir, logLevel: 'silent', simulate: false });
    try {
      await built.app.ready();
      const other = await open();
      await other.publisher.publish({ registry_version: '4.0.0', artifacts: [] });
      await vi.waitFor(
        () => {
          expect(built.modules.updates.api.currentRelease()?.manifest.registry_version).toBe(
            '4.0.0',
          );
        },
        { timeout: 5000, interval: 20 },
      );
    } finally {
      await built.app.close();
    }
  });
});
