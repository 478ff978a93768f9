/**
 * A disk that fills up after the swap (docs/UPDATER.md §3, A full disk after the swap): the new
 * set is live, the state file and the journal's removal cannot be written. The CLI says the new
 * version IS installed and clean-up is pending (exit 75, its own JSON outcome); `status` and
 * `verify` answer from what is on disk without writing; once space is back the next run
 * finishes the commit. The file system is injected: node:fs/promises, full from the swap on.
 */
import { readFile, readlink, stat } from 'node:fs/promises';
import type * as FsPromises from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EXIT_CLEANUP_PENDING, runCli } from '#cli/run-cli.js';
import type { CliEnv } from '#cli/run-cli.js';
import { startHostileServer, type HostileServer } from '#test/hostile-server.js';
import { cliArgs, tempDirs } from '#test/updater-harness.js';

const disk = vi.hoisted(() => ({ full: false, refused: 0 }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof FsPromises>();
  const enospc = (syscall: string, path: unknown): Error => {
    disk.refused += 1;
    return Object.assign(new Error(`ENOSPC: no space left on device, ${syscall}`), {
      code: 'ENOSPC',
      syscall,
      path: String(path),
    });
  };
  // Anything that needs a free block fails while the disk is full; reads, renames and
  // removals still work, as on a real full file system.
  const guard =
    <A extends unknown[], R>(name: string, fn: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      disk.full ? Promise.reject(enospc(name, args[0])) : fn(...args);
  const WRITES = new Set(['write', 'writev', 'writeFile', 'appendFile', 'truncate']);
  const open = async (...args: Parameters<typeof real.open>): ReturnType<typeof real.open> => {
    const handle = await real.open(...args);
    return new Proxy(handle, {
      get(target, key) {
        const value: unknown = Reflect.get(target, key);
        if (typeof value !== 'function') return value;
        if (typeof key === 'string' && WRITES.has(key) && disk.full) {
          return () => Promise.reject(enospc(key, args[0]));
        }
        return (value as (...a: unknown[]) => unknown).bind(target);
      },
    });
  };
  return {
    ...real,
    open,
    writeFile: guard('writeFile', real.writeFile),
    appendFile: guard('appendFile', real.appendFile),
    copyFile: guard('copyFile', real.copyFile),
    symlink: guard('symlink', real.symlink),
    mkdtemp: guard('mkdtemp', real.mkdtemp),
  };
});

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dirs = tempDirs();
let server: HostileServer;
let dir: string;

beforeEach(async () => {
  disk.full = false;
  server = await startHostileServer();
  dir = await dirs.make('updater-full-disk-');
});
afterEach(async () => {
  disk.full = false;
  await server.close();
  await dirs.cleanup();
});

/** Runs the CLI in this process (so the injected file system applies); its --json object. */
async function cli(
  command: string,
  env: CliEnv = {},
): Promise<{ code: number; json: Record<string, unknown>; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: (t: string) => void (stdout += t),
    stderr: (t: string) => void (stderr += t),
    stderrIsTty: false,
    columns: 80,
    nowMs: () => Date.now(),
  };
  const code = await runCli(cliArgs(command, { ...server, dir }), env, io);
  return { code, json: JSON.parse(stdout) as Record<string, unknown>, stderr };
}

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

/** 1.0.0 installed, then 2.0.0 installed with the disk full right after its swap. */
async function updateIntoFullDisk(): Promise<{ code: number; json: Record<string, unknown> }> {
  await server.publish({ version: '1.0.0', files: [{ name: 'a.txt', content: enc('1\n') }] });
  expect((await cli('update')).code).toBe(0);
  await server.publish({ version: '2.0.0', files: [{ name: 'a.txt', content: enc('2\n') }] });
  return cli('update', {
    onStep: (step) => {
      if (step === 'current-swapped') disk.full = true;
    },
  });
}

describe('a disk that fills up after the swap', () => {
  it('update says the new version is installed and clean-up is pending (exit 75)', async () => {
    const { code, json } = await updateIntoFullDisk();
    expect(code).toBe(EXIT_CLEANUP_PENDING);
    expect(json).toMatchObject({
      ok: false,
      command: 'update',
      code: 'CLEANUP_PENDING',
      outcome: 'installed',
      version: '2.0.0',
      cleanup_pending: true,
      details: { installed_version: '2.0.0', errno: 'ENOSPC' },
    });
    expect(json['message']).toMatch(/^2\.0\.0 is installed; its clean-up is pending/);
    // What the words say is what is on disk: the new set live, its journal still there.
    expect(await readFile(join(dir, 'current', 'a.txt'), 'utf8')).toBe('2\n');
    expect(await exists(join(dir, '.updater', 'journal.json'))).toBe(true);
  });

  it('status and verify answer on the full disk without writing anything', async () => {
    await updateIntoFullDisk();
    const stateBefore = await readFile(join(dir, '.updater', 'state.json'));
    const refusedBefore = disk.refused;
    const status = await cli('status');
    expect(status.code).toBe(0);
    expect(status.json).toMatchObject({
      ok: true,
      installed_version: '2.0.0',
      can_roll_back: true,
    });
    const verify = await cli('verify');
    expect(verify.code).toBe(0);
    expect(verify.json).toMatchObject({ ok: true, version: '2.0.0', drift: [] });
    // The disk stayed full: the lock was tried and did not land; without it nothing else is.
    expect(disk.refused).toBeGreaterThan(refusedBefore);
    expect(await readFile(join(dir, '.updater', 'state.json'))).toEqual(stateBefore);
    expect(await exists(join(dir, '.updater', 'journal.json'))).toBe(true);
  });

  it('once space is back, the next run finishes the clean-up', async () => {
    await updateIntoFullDisk();
    disk.full = false;
    const status = await cli('status');
    expect(status).toMatchObject({ code: 0, json: { installed_version: '2.0.0' } });
    expect(await exists(join(dir, '.updater', 'journal.json'))).toBe(false);
    const state = JSON.parse(await readFile(join(dir, '.updater', 'state.json'), 'utf8')) as {
      installed: { version: string };
    };
    expect(state.installed.version).toBe('2.0.0');
    const live = await readlink(join(dir, 'current'));
    expect((await cli('verify')).json).toMatchObject({ ok: true, version: '2.0.0' });
    expect(await readlink(join(dir, 'current'))).toBe(live);
  });
});
