/**
 * The self-update path with the platform injected: a real installed set on disk (a temp
 * folder shaped as the core leaves it), the core's verify() and the platform's operations
 * faked, for Windows and macOS (the AppImage runs for real in
 * test/integration/self-update-appimage.test.ts).
 */
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HandOverOps } from '#app/self-update/hand-over.js';
import { runSelfUpdate, type SelfUpdateDeps } from '#app/self-update/self-update.js';

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((r) => rm(r, { recursive: true, force: true })));
});

async function setup(files: Record<string, string>, drift: string[] = []) {
  const root = await mkdtemp(join(tmpdir(), 'self-update-unit-'));
  roots.push(root);
  const live = join(root, 'set');
  for (const [name, content] of Object.entries(files)) {
    await mkdir(dirname(join(live, name)), { recursive: true });
    await writeFile(join(live, name), content);
  }
  const workDir = join(root, 'work');
  await mkdir(workDir);
  const calls: string[] = [];
  const ops: HandOverOps = {
    stat: () => Promise.resolve({ mode: 0o755 }),
    chmod: () => Promise.resolve(),
    rename: (from, to) => {
      calls.push(`rename ${from} -> ${to}`);
      return Promise.resolve();
    },
    rm: () => Promise.resolve(),
    syncDir: () => Promise.resolve(),
    readdir: () => Promise.resolve(['Verified Updater.app']),
    extractZip: async (zip, into) => {
      calls.push(`extract ${await readFile(zip, 'utf8')} -> ${into}`);
    },
    spawnDetached: async (file, args) => {
      calls.push(`spawn ${[file, ...args].join(' ')}`);
      if (file.endsWith('.exe')) calls.push(`installer bytes: ${await readFile(file, 'utf8')}`);
    },
    quit: () => calls.push('quit'),
  };
  const base = {
    mode: 'auto' as const,
    liveSetDir: () => Promise.resolve(live),
    listDir: (dir: string) => readdir(dir).catch(() => []),
    verifyInstalled: () => {
      calls.push('verify');
      return Promise.resolve({
        version: '1.0.0',
        drift: drift.map((name) => ({ name, problem: 'modified' })),
      });
    },
    ask: () => Promise.resolve(true),
    workDir,
    unique: () => 'u1',
    ops,
  };
  return { base, calls, workDir };
}

describe('Windows, platform injected', () => {
  const exe = 'app/win32-x64/verified-updater-0.2.0-win-x64.exe';
  const deps = (base: Omit<SelfUpdateDeps, 'running' | 'install'>): SelfUpdateDeps => ({
    ...base,
    running: { version: '0.1.0', platform: 'win32', arch: 'x64', kind: 'nsis' },
    install: { kind: 'nsis', path: 'C:/Users/u/AppData/Local/Programs/verified-updater' },
  });

  it('runs the verified copy of the installer silently, after verification, then quits', async () => {
    const { base, calls, workDir } = await setup({ [exe]: 'NSIS 0.2.0' });
    const outcome = await runSelfUpdate(deps(base));
    expect(outcome).toEqual({
      kind: 'handed-over',
      version: '0.2.0',
      result: { kind: 'restarting' },
    });
    const copy = join(workDir, 'u1-verified-updater-0.2.0-win-x64.exe');
    expect(calls).toEqual(['verify', `spawn ${copy} /S`, 'installer bytes: NSIS 0.2.0', 'quit']);
  });

  it('runs nothing when the installer drifted from the signed manifest', async () => {
    const { base, calls, workDir } = await setup({ [exe]: 'NSIS 0.2.0' }, [exe]);
    expect(await runSelfUpdate(deps(base))).toMatchObject({ kind: 'failed', code: 'TAMPERED' });
    expect(calls).toEqual(['verify']);
    expect(await readdir(workDir)).toEqual([]);
  });
});

describe('macOS, platform injected', () => {
  it('swaps the bundle from the verified universal zip', async () => {
    const zip = 'app/darwin-universal/verified-updater-0.2.0-mac-universal.zip';
    const { base, calls } = await setup({ [zip]: 'ZIP 0.2.0' });
    const outcome = await runSelfUpdate({
      ...base,
      running: { version: '0.1.0', platform: 'darwin', arch: 'arm64', kind: 'mac-zip' },
      install: { kind: 'mac-zip', path: '/Applications/Verified Updater.app' },
    });
    expect(outcome).toMatchObject({ kind: 'handed-over', version: '0.2.0' });
    expect(calls).toEqual([
      'verify',
      'extract ZIP 0.2.0 -> /Applications/.u1',
      'rename /Applications/Verified Updater.app -> /Applications/.Verified Updater.app.u1.old',
      'rename /Applications/.u1/Verified Updater.app -> /Applications/Verified Updater.app',
      'spawn /usr/bin/open -n /Applications/Verified Updater.app',
      'quit',
    ]);
  });
});

describe('.deb', () => {
  it('leaves the verified package in the work folder and says how to install it', async () => {
    const deb = 'app/linux-x64/verified-updater-0.2.0-linux-amd64.deb';
    const { base, calls, workDir } = await setup({ [deb]: 'DEB 0.2.0' });
    const outcome = await runSelfUpdate({
      ...base,
      running: { version: '0.1.0', platform: 'linux', arch: 'x64', kind: 'deb' },
      install: { kind: 'deb', path: '/opt/Verified Updater/verified-updater' },
    });
    const path = join(workDir, 'u1-verified-updater-0.2.0-linux-amd64.deb');
    expect(outcome).toEqual({
      kind: 'handed-over',
      version: '0.2.0',
      result: { kind: 'manual', path, command: `sudo apt install '${path}'` },
    });
    expect(await readFile(path, 'utf8')).toBe('DEB 0.2.0');
    expect(calls).toEqual(['verify']);
  });
});
