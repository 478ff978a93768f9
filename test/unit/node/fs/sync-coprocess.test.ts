/**
 * The long-lived shell that runs each batch's `sync` (src/node/fs/sync-coprocess.ts,
 * docs/UPDATER.md §3 Durability): execFileRunner's contract, kept over one process.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandRunner } from '#node/fs/fs-sync.js';
import { SyncCoprocess } from '#node/fs/sync-coprocess.js';

const shells: SyncCoprocess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const shell of shells.splice(0)) shell.release();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

function coprocess(shell?: string, fallback?: CommandRunner): SyncCoprocess {
  const made = new SyncCoprocess(shell, fallback);
  shells.push(made);
  return made;
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sync-coprocess-'));
  dirs.push(dir);
  return dir;
}

describe('SyncCoprocess', () => {
  it('runs sync -f DIR, many times over one shell', async () => {
    const dir = await tempDir();
    const shell = coprocess();
    for (let i = 0; i < 5; i += 1) {
      await expect(
        shell.run('/bin/sh', ['-c', 'echo x >> "$1"', 'sh', join(dir, 'n')], 10_000),
      ).resolves.toBeUndefined();
    }
    await expect(shell.run('/usr/bin/sync', ['-f', dir], 10_000)).resolves.toBeUndefined();
  });

  it('passes the directory as data: shell syntax in it is never run', async () => {
    const dir = await tempDir();
    const planted = join(dir, 'pwned');
    const shell = coprocess();
    const hostile = `${dir}/$(touch ${planted}); touch ${planted}`;
    // No such directory: sync fails (status 1), and nothing of the name ran.
    await expect(shell.run('/usr/bin/sync', ['-f', hostile], 10_000)).rejects.toMatchObject({
      code: 1,
    });
    expect(existsSync(planted)).toBe(false);
  });

  it('maps not found and not executable to ENOENT and EACCES (the next sync path is tried)', async () => {
    const dir = await tempDir();
    const shell = coprocess();
    await expect(shell.run(join(dir, 'no-sync'), [], 10_000)).rejects.toMatchObject({
      code: 'ENOENT',
    });
    const plain = join(dir, 'not-executable');
    await writeFile(plain, 'data', { mode: 0o644 });
    await expect(shell.run(plain, [], 10_000)).rejects.toMatchObject({
      code: 'EACCES',
    });
    await expect(shell.run('/bin/sh', ['-c', 'exit 3'], 10_000)).rejects.toMatchObject({ code: 3 });
  });

  it('kills the shell after the timeout; the next command starts a new one', async () => {
    const shell = coprocess();
    await expect(shell.run('/bin/sh', ['-c', 'sleep 10'], 200)).rejects.toMatchObject({
      killed: true,
    });
    await expect(shell.run('/bin/sh', ['-c', 'exit 0'], 10_000)).resolves.toBeUndefined();
  });

  it('a shell that dies fails the command waiting for it', async () => {
    const shell = coprocess();
    await expect(shell.run('/bin/sh', ['-c', 'kill -9 $PPID'], 10_000)).rejects.toThrow(
      /sync shell exited/,
    );
    await expect(shell.run('/bin/sh', ['-c', 'exit 0'], 10_000)).resolves.toBeUndefined();
  });

  it('runs through the fallback when the shell cannot be started, or a line cannot carry an argument', async () => {
    const calls: string[] = [];
    const fallback: CommandRunner = (file, args) => {
      calls.push([file, ...args].join(' '));
      return Promise.resolve();
    };
    const dir = await tempDir();
    await coprocess(join(dir, 'no-shell'), fallback).run('/usr/bin/sync', ['-f', '/a'], 10_000);
    await coprocess(undefined, fallback).run('/usr/bin/sync', ['-f', '/a\nb'], 10_000);
    expect(calls).toEqual(['/usr/bin/sync -f /a', '/usr/bin/sync -f /a\nb']);
  });

  it.runIf(process.platform === 'linux')(
    'no descriptor left for its pipes: the command fails, and the process lives on',
    async () => {
      const root = resolve(import.meta.dirname, '..', '..', '..', '..');
      const script = join(root, 'test', 'helpers', 'sync-shell-emfile-child.ts');
      const command = 'ulimit -n 64 && exec "$0" --import tsx "$1"';
      const stdout = await new Promise<string>((done, fail) => {
        execFile(
          'bash',
          ['-c', command, process.execPath, script],
          { cwd: root },
          (e, out, err) => {
            if (e === null) done(out);
            else fail(new Error(`child failed: ${err.slice(-800)}`));
          },
        );
      });
      const result = JSON.parse(stdout) as { failure?: unknown; alive?: unknown };
      expect(typeof result.failure).toBe('string');
      expect(result.alive).toBe(true);
    },
    60_000,
  );
});
