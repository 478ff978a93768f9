/**
 * Output that cannot be written (src/cli/broken-pipe.ts): the stream's failure is taken and
 * later writes are dropped. A reader that left (EPIPE) leaves the command's exit code as it is,
 * with no stack trace; any other failure of stdout (ENOSPC: `> /dev/full`) is said on stderr
 * once and turns exit 0 into 74, after the command ran to its end.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT_OUTPUT_FAILED, outliveReader, watchOutput } from '#cli/broken-pipe.js';
import { sha256Hex, startHostileServer } from '#test/hostile-server.js';
import { filesOf, snapshotTree } from '#test/tree-snapshot.js';
import { bytesOf, cliArgs, REPO_ROOT, tempDirs, updaterCliArgv } from '#test/updater-harness.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

/** A stream whose every write fails with `code` (EPIPE: a pipe with no reader). */
function failingStream(code: string): Writable {
  return new Writable({
    write(_chunk, _encoding, callback) {
      callback(Object.assign(new Error(`write ${code}`), { code }));
    },
  });
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('outliveReader', () => {
  it('takes the failed write: no error event is left unhandled, later writes are dropped', async () => {
    const stream = failingStream('EPIPE');
    outliveReader(stream);
    stream.write('first');
    await tick();
    expect(stream.destroyed).toBe(true);
    // An `error` event with no listener throws where it is emitted.
    expect(() => stream.emit('error', new Error('write EPIPE'))).not.toThrow();
    expect(() => stream.write('later')).not.toThrow();
  });
});

describe('watchOutput', () => {
  it('a reader that left (EPIPE, EOF) is not reported and leaves the exit code as it is', async () => {
    for (const code of ['EPIPE', 'EOF']) {
      const lines: string[] = [];
      const stream = failingStream(code);
      const watch = watchOutput(stream, 'stdout', (line) => lines.push(line));
      stream.write('result');
      expect(await watch.exitCode(0)).toBe(0);
      expect(() => stream.write('later')).not.toThrow();
      expect(watch.failure()).toBeUndefined();
      expect(lines).toEqual([]);
    }
  });

  it('a full disk (ENOSPC) is reported once, with its errno, and turns exit 0 into 74', async () => {
    const lines: string[] = [];
    const stream = failingStream('ENOSPC');
    const watch = watchOutput(stream, 'stdout', (line) => lines.push(line));
    stream.write('result');
    expect(await watch.exitCode(0)).toBe(EXIT_OUTPUT_FAILED);
    stream.write('later');
    await tick();
    expect(lines).toEqual([
      "error OUTPUT_FAILED: stdout could not be written, the command's output is lost: " +
        'write ENOSPC\n  errno: ENOSPC\n',
    ]);
    expect(watch.failure()?.message).toBe('write ENOSPC');
  });

  it('keeps the code of a run that did not end well: it says more than the lost output', async () => {
    const stream = failingStream('EIO');
    const watch = watchOutput(stream, 'stdout', () => undefined);
    stream.write('result');
    expect(await watch.exitCode(1)).toBe(1);
    expect(await watch.exitCode(2)).toBe(2);
    expect(await watch.exitCode(130)).toBe(130);
  });
});

interface Run {
  readonly code: number | null;
  readonly stderr: string;
}

/**
 * Runs the CLI with stdout on `stdout`: a file descriptor (/dev/full), or 'left' for a pipe
 * whose reader is closed at once (the CLI takes longer than that to start, so its first write
 * finds no reader: EPIPE).
 */
function spawnCli(args: readonly string[], stdout: number | 'left'): Promise<Run> {
  const child = spawn(process.execPath, [...updaterCliArgv(), ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', stdout === 'left' ? 'pipe' : stdout, 'pipe'],
  });
  if (stdout === 'left') child.stdout?.destroy();
  const stderr: Buffer[] = [];
  child.stderr?.on('data', (b: Buffer) => stderr.push(b));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) => {
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr: Buffer.concat(stderr).toString('utf8') });
    });
  });
}

/** Runs the CLI with its stdout opened on /dev/full, where every write fails with ENOSPC. */
async function onFullDevice(args: readonly string[]): Promise<Run> {
  const fd = openSync('/dev/full', 'w');
  try {
    return await spawnCli(args, fd);
  } finally {
    closeSync(fd);
  }
}

const OUTPUT_FAILED =
  /^error OUTPUT_FAILED: stdout could not be written.*ENOSPC.*\n {2}errno: ENOSPC\n/m;

describe('the CLI with its stdout closed by the reader', () => {
  it('ends with its command code and no stack trace (`updater check --json ... | head -c 10`)', async () => {
    // An unknown option is echoed in the result: 240 KB of JSON, more than a pipe holds, so
    // the write is still pending when the reader leaves after its first chunk.
    const bogus = `--bogus-${'a'.repeat(120_000)}`;
    const child = spawn(process.execPath, [...updaterCliArgv(), 'check', '--json', bogus], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.once('data', () => child.stdout.destroy());
    const stderr: Buffer[] = [];
    child.stderr.on('data', (b: Buffer) => stderr.push(b));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    const text = Buffer.concat(stderr).toString('utf8');
    expect(text).toMatch(/^error CONFIG_INVALID: unknown option/);
    expect(text).not.toMatch(/EPIPE|Unhandled/);
    expect(code).toBe(2);
  }, 30_000);

  it('a command that succeeds still exits 0, silently (`updater --help | true`)', async () => {
    const run = await spawnCli(['--help'], 'left');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  }, 30_000);
});

describe.runIf(process.platform === 'linux')('the CLI with its stdout on a full device', () => {
  it('update --json > /dev/full installs, says the output is lost and exits 74', async () => {
    const server = await startHostileServer();
    try {
      const files = [{ name: 'bin/app', content: bytesOf(30_000, 1) }];
      await server.publish({ version: '1.0.0', files });
      const target = {
        baseUrl: server.baseUrl,
        machineKey: server.machineKey,
        pubkeyHex: server.pubkeyHex,
        dir: await dirs.make('qa-full-'),
      };
      const update = await onFullDevice(cliArgs('update', target));
      expect(update.stderr).toMatch(OUTPUT_FAILED);
      expect(update.code).toBe(EXIT_OUTPUT_FAILED);
      // The install ran to its end: the output had nowhere to go, the run did.
      expect(filesOf(await snapshotTree(join(target.dir, 'current')))).toEqual({
        'bin/app': sha256Hex(files[0]?.content ?? new Uint8Array()),
      });
      const check = await onFullDevice(cliArgs('check', target));
      expect(check.stderr).toMatch(OUTPUT_FAILED);
      expect(check.code).toBe(EXIT_OUTPUT_FAILED);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('a failed run keeps its own code (2 for usage), the lost output said too', async () => {
    const run = await onFullDevice(['check', '--json', '--bogus']);
    expect(run.stderr).toMatch(/^error CONFIG_INVALID: unknown option/);
    expect(run.stderr).toMatch(OUTPUT_FAILED);
    expect(run.code).toBe(2);
  }, 30_000);

  it('serve, through the same entry point, exits 74 too (`updater serve --help > /dev/full`)', async () => {
    const run = await onFullDevice(['serve', '--help']);
    expect(run.stderr).toMatch(OUTPUT_FAILED);
    expect(run.code).toBe(EXIT_OUTPUT_FAILED);
  }, 30_000);
});
