/**
 * `npm run demo` (src/cli/demo.ts): a whole run against the in-process server, and the same run
 * under a reader that leaves after the first line (`npm run demo | head -1`), which must still
 * remove the state directory it made (src/cli/broken-pipe.ts), the same run with its stdout on a
 * full device (`npm run demo > /dev/full`: exit 74, said on stderr), and the run stopped by a signal.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDirs } from '#test/updater-harness.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const DEMO = join(REPO_ROOT, 'src', 'cli', 'demo.ts');

interface DemoRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the demo with its own TMPDIR (where it makes its state directory); with `leaveEarly`,
 * stdout is closed after its first chunk; with `interrupt`, that signal is sent once stdout
 * names the state directory (the first install is then under way); with `stdoutFd`, stdout is
 * that file descriptor instead of a pipe.
 */
function runDemo(
  tmp: string,
  leaveEarly: boolean,
  interrupt?: NodeJS.Signals,
  stdoutFd?: number,
): Promise<DemoRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', DEMO], {
    cwd: REPO_ROOT,
    env: { ...process.env, TMPDIR: tmp },
    stdio: ['ignore', stdoutFd ?? 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on('data', (b: Buffer) => {
    out.push(b);
    if (leaveEarly) child.stdout?.destroy();
    if (interrupt !== undefined && Buffer.concat(out).includes('state directory')) {
      child.kill(interrupt);
      interrupt = undefined;
    }
  });
  child.stderr?.on('data', (b: Buffer) => err.push(b));
  const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
  return new Promise((resolve) => {
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({
        code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
  });
}

/** What the demo made in `tmp` (tsx keeps its own cache there too). */
const demoDirsIn = async (tmp: string): Promise<string[]> =>
  (await readdir(tmp)).filter((name) => name.startsWith('updater-demo-'));

/** The temporary data directories of the demo's in-process server in `tmp`. */
const serverDirsIn = async (tmp: string): Promise<string[]> =>
  (await readdir(tmp)).filter((name) => name.startsWith('updates-server-'));

describe('npm run demo', () => {
  it('installs, moves only the changed artifact on the update, verifies, and cleans up', async () => {
    const tmp = await dirs.make('demo-tmp-');
    const run = await runDemo(tmp, false);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`state directory ${join(tmp, 'updater-demo-')}`);
    expect(run.stdout).toMatch(/check: 20 artifacts to fetch/);
    expect(run.stdout).toMatch(/check: 1 to fetch \(256\.0 KiB\), 19 reused/);
    expect(run.stdout).toMatch(/update: applied 1\.1\.0, 256\.0 KiB of 5\.0 MiB moved/);
    expect(run.stdout).toMatch(/verify: no drift in 1\.1\.0/);
    expect(await demoDirsIn(tmp)).toEqual([]);
  }, 60_000);

  it('with its reader gone after the first line, still finishes and removes its directory', async () => {
    const tmp = await dirs.make('demo-tmp-');
    const run = await runDemo(tmp, true);
    expect(run.stdout).toMatch(/^server http/);
    expect(run.stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(run.code).toBe(0);
    expect(await demoDirsIn(tmp)).toEqual([]);
  }, 60_000);

  it.runIf(process.platform === 'linux')(
    'with its stdout on a full device, finishes, removes its directory, says so and exits 74',
    async () => {
      const tmp = await dirs.make('demo-tmp-');
      const fd = openSync('/dev/full', 'w');
      const run = await runDemo(tmp, false, undefined, fd).finally(() => closeSync(fd));
      expect(run.stderr).toMatch(
        /^error OUTPUT_FAILED: stdout could not be written.*ENOSPC.*\n {2}errno: ENOSPC\n$/,
      );
      expect(run.code).toBe(74);
      expect(await demoDirsIn(tmp)).toEqual([]);
      expect(await serverDirsIn(tmp)).toEqual([]);
    },
    60_000,
  );

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    'stopped by %s mid-run, removes its state directory and the server data dir, exit %i',
    async (signal, code) => {
      const tmp = await dirs.make('demo-tmp-');
      const run = await runDemo(tmp, false, signal);
      expect(run.stdout).toContain('state directory');
      expect(run.stderr).toBe('interrupted: the demo removed what it made\n');
      expect(run.code).toBe(code);
      expect(await demoDirsIn(tmp)).toEqual([]);
      expect(await serverDirsIn(tmp)).toEqual([]);
    },
    60_000,
  );
});
