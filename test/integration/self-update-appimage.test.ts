/**
 * The app updates itself through its own verified path, end to end on Linux for real
 * (docs/RELEASING.md "Self-update targets"): the REAL companion server publishes a release
 * whose targets include an AppImage-shaped executable (a shell script) under
 * `app/linux-x64/`, the real core installs and verifies it, and the self-update code, under
 * Node, replaces the running "AppImage" file. Only the relaunch and the quit are recorded
 * instead of run (the platform is Linux; the process list is left alone).
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeHandOverOps } from '#app/self-update/hand-over-ops.js';
import type { HandOverOps } from '#app/self-update/hand-over.js';
import { runSelfUpdate, type SelfUpdateDeps } from '#app/self-update/self-update.js';
import { createNodeUpdater, resolveCurrentSet, type UpdaterApi } from '#node/index.js';
import { startServer } from '#server/compose/start-server.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const script = (version: string): string => `#!/bin/sh\necho "verified-updater ${version}"\n`;
const appName = (version: string): string =>
  `app/linux-x64/verified-updater-${version}-linux-x86_64.AppImage`;

interface Scenario {
  appImage: string;
  appsDir: string;
  dir: string;
  updater: UpdaterApi;
  publish(registryVersion: string, appVersion: string): Promise<void>;
  events: string[];
  deps(overrides?: Partial<HandOverOps>): SelfUpdateDeps;
}

async function scenario(): Promise<Scenario> {
  const server = await startServer({ dev: true, simulate: false });
  const root = await mkdtemp(join(tmpdir(), 'self-update-'));
  cleanups.push(
    () => server.close(),
    () => rm(root, { recursive: true, force: true }),
  );
  const minted = (await (
    await fetch(`${server.url}/api/demo-key/mint`, { method: 'POST' })
  ).json()) as { machine_key: string };
  const appsDir = join(root, 'Applications');
  const appImage = join(appsDir, 'Verified-Updater.AppImage');
  const workDir = join(root, 'work');
  const dir = join(root, 'install');
  await mkdir(appsDir, { recursive: true });
  await mkdir(workDir, { recursive: true });
  await writeFile(appImage, script('0.1.0'));
  await chmod(appImage, 0o755);
  const updater = await createNodeUpdater({
    baseUrl: server.url,
    machineKey: minted.machine_key,
    pubkeys: [server.nodePubkey],
    dir,
  });
  cleanups.push(() => updater.close());
  const events: string[] = [];
  let n = 0;
  return {
    appImage,
    appsDir,
    dir,
    updater,
    events,
    publish: async (registryVersion, appVersion) => {
      await server.publish({
        registry_version: registryVersion,
        artifacts: [
          { name: 'data/readme.txt', content: new TextEncoder().encode(`${registryVersion}\n`) },
          { name: appName(appVersion), content: new TextEncoder().encode(script(appVersion)) },
        ],
      });
    },
    deps: (overrides = {}) => {
      const real = nodeHandOverOps(() => events.push('quit'));
      return {
        mode: 'auto',
        running: { version: '0.1.0', platform: 'linux', arch: 'x64', kind: 'appimage' },
        install: { kind: 'appimage', path: appImage },
        liveSetDir: () => resolveCurrentSet(dir),
        listDir: (path) => readdir(path).catch(() => []),
        verifyInstalled: async () => {
          events.push('verify');
          return updater.verify();
        },
        ask: () => Promise.resolve(true),
        workDir,
        unique: () => `update-${(n += 1)}`,
        ops: {
          ...real,
          rename: async (from, to) => {
            events.push('rename');
            await real.rename(from, to);
          },
          spawnDetached: (file, args) => {
            events.push(`relaunch ${[file, ...args].join(' ')}`);
            return Promise.resolve();
          },
          ...overrides,
        },
      };
    },
  };
}

describe('self-update of an AppImage through the registry', () => {
  it('replaces the file atomically with the verified newer one, keeps its mode, relaunches', async () => {
    const s = await scenario();
    await s.publish('1.0.0', '0.2.0');
    await s.updater.update();
    const before = await stat(s.appImage);

    const outcome = await runSelfUpdate(s.deps());

    expect(outcome).toEqual({
      kind: 'handed-over',
      version: '0.2.0',
      result: { kind: 'restarting' },
    });
    const after = await stat(s.appImage);
    expect(after.ino).not.toBe(before.ino); // a rename, never a write into the old file
    expect(after.mode & 0o777).toBe(0o755);
    expect(execFileSync(s.appImage).toString()).toBe('verified-updater 0.2.0\n');
    // Verified before the replacement; nothing left beside the file.
    expect(s.events).toEqual(['verify', 'rename', `relaunch ${s.appImage}`, 'quit']);
    expect(await readdir(s.appsDir)).toEqual(['Verified-Updater.AppImage']);
  });

  it('refuses an installer that no longer matches the signed manifest, and keeps the old file', async () => {
    const s = await scenario();
    await s.publish('1.0.0', '0.2.0');
    await s.updater.update();
    const live = await resolveCurrentSet(s.dir);
    await writeFile(join(live ?? '', appName('0.2.0')), script('6.6.6 (tampered)'));
    const before = await stat(s.appImage);

    const outcome = await runSelfUpdate(s.deps());

    expect(outcome).toMatchObject({ kind: 'failed', version: '0.2.0', code: 'TAMPERED' });
    expect((await stat(s.appImage)).ino).toBe(before.ino);
    expect(await readFile(s.appImage, 'utf8')).toBe(script('0.1.0'));
    expect(s.events).not.toContain('rename');
    expect(await readdir(s.appsDir)).toEqual(['Verified-Updater.AppImage']);
  });

  it('never installs an older or equal version', async () => {
    const s = await scenario();
    await s.publish('1.0.0', '0.0.9');
    await s.updater.update();
    expect(await runSelfUpdate(s.deps())).toEqual({ kind: 'up-to-date' });
    await s.publish('1.1.0', '0.1.0');
    await s.updater.update();
    expect(await runSelfUpdate(s.deps())).toEqual({ kind: 'up-to-date' });
    expect(await readFile(s.appImage, 'utf8')).toBe(script('0.1.0'));
    expect(s.events).toEqual([]);
  });

  it('keeps the old file and runs on when the hand-over fails', async () => {
    const s = await scenario();
    await s.publish('1.0.0', '0.2.0');
    await s.updater.update();
    const outcome = await runSelfUpdate(
      s.deps({ rename: () => Promise.reject(new Error('EACCES: read-only folder')) }),
    );
    expect(outcome).toMatchObject({ kind: 'failed', code: 'HAND_OVER_FAILED' });
    expect(await readFile(s.appImage, 'utf8')).toBe(script('0.1.0'));
    expect(execFileSync(s.appImage).toString()).toBe('verified-updater 0.1.0\n');
    expect(await readdir(s.appsDir)).toEqual(['Verified-Updater.AppImage']);
    expect(s.events).not.toContain('quit');
  });

  it('does nothing when the setting says never, and asks first when it says ask', async () => {
    const s = await scenario();
    await s.publish('1.0.0', '0.2.0');
    await s.updater.update();
    expect(await runSelfUpdate({ ...s.deps(), mode: 'never' })).toEqual({ kind: 'off' });
    const asked: string[] = [];
    const declined = await runSelfUpdate({
      ...s.deps(),
      mode: 'ask',
      ask: (target) => {
        asked.push(target.version);
        return Promise.resolve(false);
      },
    });
    expect(declined).toEqual({ kind: 'declined', version: '0.2.0' });
    expect(asked).toEqual(['0.2.0']);
    expect(await readFile(s.appImage, 'utf8')).toBe(script('0.1.0'));
  });
});
