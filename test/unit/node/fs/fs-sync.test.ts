import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  FsSync,
  execFileRunner,
  kernelVersion,
  syncfsReportsErrors,
  type CommandRunner,
} from '#node/fs/fs-sync.js';

const errnoError = (code: string | number): Error =>
  Object.assign(new Error(`failed: ${code}`), { code });

/** A runner answering per path, recording the calls. */
function runner(answers: Record<string, Error | undefined>): CommandRunner & { calls: string[] } {
  const calls: string[] = [];
  const run = (file: string, args: readonly string[]): Promise<void> => {
    calls.push([file, ...args].join(' '));
    const answer = answers[file];
    return answer === undefined ? Promise.resolve() : Promise.reject(answer);
  };
  return Object.assign(run, { calls });
}

describe('kernelVersion', () => {
  it('reads major and minor from a release string', () => {
    expect(kernelVersion('6.8.0-45-generic')).toEqual([6, 8]);
    expect(kernelVersion('5.10.16.3-microsoft-standard-WSL2')).toEqual([5, 10]);
    expect(kernelVersion('23.6.0')).toEqual([23, 6]);
  });

  it('is undefined for a release it cannot read', () => {
    expect(kernelVersion('')).toBeUndefined();
    expect(kernelVersion('v6.1')).toBeUndefined();
  });
});

describe('syncfsReportsErrors', () => {
  it('holds on Linux from 5.8 on', () => {
    expect(syncfsReportsErrors('linux', '5.8.0')).toBe(true);
    expect(syncfsReportsErrors('linux', '5.15.0-91-generic')).toBe(true);
    expect(syncfsReportsErrors('linux', '6.1.0')).toBe(true);
  });

  it('does not before 5.8 (syncfs returned 0 after a write-back error)', () => {
    expect(syncfsReportsErrors('linux', '5.7.19')).toBe(false);
    expect(syncfsReportsErrors('linux', '4.19.0')).toBe(false);
  });

  it('does not elsewhere, nor for an unreadable release', () => {
    expect(syncfsReportsErrors('darwin', '23.6.0')).toBe(false);
    expect(syncfsReportsErrors('win32', '10.0.22631')).toBe(false);
    expect(syncfsReportsErrors('linux', 'unknown')).toBe(false);
  });
});

describe('FsSync', () => {
  it('runs /usr/bin/sync -f DIR and keeps to it', async () => {
    const run = runner({});
    const sync = new FsSync('/s/blobs', run);
    expect(await sync.sync()).toBe(true);
    expect(await sync.sync()).toBe(true);
    expect(run.calls).toEqual(['/usr/bin/sync -f /s/blobs', '/usr/bin/sync -f /s/blobs']);
    expect(sync.usable).toBe(true);
  });

  it('tries /bin/sync when /usr/bin/sync cannot be started', async () => {
    const run = runner({ '/usr/bin/sync': errnoError('ENOENT') });
    const sync = new FsSync('/s/blobs', run);
    expect(await sync.sync()).toBe(true);
    expect(await sync.sync()).toBe(true);
    expect(run.calls).toEqual([
      '/usr/bin/sync -f /s/blobs',
      '/bin/sync -f /s/blobs',
      '/bin/sync -f /s/blobs',
    ]);
  });

  it('answers false, once and for good, when none can be started (ENOENT, EACCES)', async () => {
    const run = runner({
      '/usr/bin/sync': errnoError('EACCES'),
      '/bin/sync': errnoError('ENOENT'),
    });
    const sync = new FsSync('/s/blobs', run);
    expect(await sync.sync()).toBe(false);
    expect(sync.usable).toBe(false);
    expect(await sync.sync()).toBe(false);
    expect(run.calls).toHaveLength(2);
  });

  it('gives syncfs up for good on a non-zero exit, without trying another path', async () => {
    // A `sync` without -f exits 1 as a real error does: each blob's own fsync decides then.
    const exit1 = errnoError(1);
    const run = runner({ '/usr/bin/sync': exit1 });
    const gaveUp: unknown[] = [];
    const sync = new FsSync('/s/blobs', run, undefined, (error) => gaveUp.push(error));
    expect(await sync.sync()).toBe(false);
    expect(sync.usable).toBe(false);
    expect(gaveUp).toEqual([exit1]);
    expect(await sync.sync()).toBe(false);
    expect(run.calls).toEqual(['/usr/bin/sync -f /s/blobs']);
  });

  it('gives syncfs up when a sync that worked before fails, even with ENOENT', async () => {
    let fail = false;
    let calls = 0;
    const run: CommandRunner = () => {
      calls += 1;
      return fail ? Promise.reject(errnoError('ENOENT')) : Promise.resolve();
    };
    const sync = new FsSync('/s/blobs', run);
    expect(await sync.sync()).toBe(true);
    fail = true;
    expect(await sync.sync()).toBe(false);
    expect(await sync.sync()).toBe(false);
    expect(calls).toBe(2);
  });
});

describe('execFileRunner', () => {
  it('resolves on exit 0 and rejects with the exit status or the spawn errno', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fs-sync-'));
    try {
      await expect(execFileRunner(process.execPath, ['-e', ''], 10_000)).resolves.toBeUndefined();
      await expect(
        execFileRunner(process.execPath, ['-e', 'process.exit(3)'], 10_000),
      ).rejects.toMatchObject({ code: 3 });
      await expect(execFileRunner(join(dir, 'no-such-sync'), [], 10_000)).rejects.toMatchObject({
        code: 'ENOENT',
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
