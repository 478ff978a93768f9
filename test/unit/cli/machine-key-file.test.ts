import { execFileSync, spawnSync } from 'node:child_process';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  MAX_MACHINE_KEY_FILE_BYTES,
  machineKeyOf,
  readMachineKeyFile,
} from '#cli/machine-key-file.js';
import { REPO_ROOT, updaterCliArgv } from '#test/updater-harness.js';
import { tempDirs } from '#test/temp-dir.js';
import { refusalOf as refusal } from '#test/expect-code.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

async function keyFile(content: string, mode: number): Promise<string> {
  const path = join(await dirs.make(), 'machine-key');
  await writeFile(path, content, { mode });
  await chmod(path, mode); // the umask may have narrowed it
  return path;
}

describe('readMachineKeyFile', () => {
  it('reads the key of a 0600 file, without its final newline', async () => {
    expect(readMachineKeyFile(await keyFile('mk-123\n', 0o600), 'linux')).toBe('mk-123');
  });

  it('allows a group-readable file (0640: a service account group may hold the key)', async () => {
    expect(readMachineKeyFile(await keyFile('mk-123\r\n', 0o640), 'linux')).toBe('mk-123');
  });

  it('refuses a world-readable file on POSIX, saying how to fix it (CONFIG_INVALID)', async () => {
    const path = await keyFile('mk-123\n', 0o644);
    const e = refusal(() => readMachineKeyFile(path, 'linux'));
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toBe(
      `--machine-key-file ${path} is open to other users (mode 0644); run: chmod o-rwx ${path}`,
    );
    expect(e.details).toEqual({ path, mode: '0644' });
    expect(e.message).not.toContain('mk-123');
  });

  it('refuses a file others may write to, even when they cannot read it', async () => {
    const path = await keyFile('mk-123\n', 0o602);
    expect(refusal(() => readMachineKeyFile(path, 'linux')).code).toBe('CONFIG_INVALID');
  });

  it('reads the file as is on Windows, which has no such mode bits', async () => {
    expect(readMachineKeyFile(await keyFile('mk-123\n', 0o644), 'win32')).toBe('mk-123');
  });

  it('refuses a missing file, naming its path and errno', async () => {
    const path = join(await dirs.make(), 'absent');
    const e = refusal(() => readMachineKeyFile(path, 'linux'));
    expect(e).toMatchObject({ code: 'CONFIG_INVALID', details: { path, errno: 'ENOENT' } });
    expect(e.message).toContain('(ENOENT)');
  });

  it('refuses a directory, an empty file, two lines and an oversized file', async () => {
    const dir = join(await dirs.make(), 'd');
    await mkdir(dir, { mode: 0o700 });
    expect(refusal(() => readMachineKeyFile(dir, 'linux')).message).toContain('is not a file');
    const empty = await keyFile('\n', 0o600);
    expect(refusal(() => readMachineKeyFile(empty, 'linux')).message).toContain('is empty');
    const two = await keyFile('mk-1\nmk-2\n', 0o600);
    expect(refusal(() => readMachineKeyFile(two, 'linux')).message).toContain('more than one');
    const big = await keyFile('k'.repeat(MAX_MACHINE_KEY_FILE_BYTES + 1), 0o600);
    expect(refusal(() => readMachineKeyFile(big, 'linux')).message).toContain('larger than');
  });
});

describe('--machine-key-file naming a FIFO', () => {
  it('is refused at once, not waited on for a writer (the CLI in a child: a blocked open would hang this worker)', async () => {
    const dir = await dirs.make();
    const fifo = join(dir, 'key-fifo');
    execFileSync('mkfifo', ['-m', '0600', fifo]);
    const run = spawnSync(
      process.execPath,
      [...updaterCliArgv(), 'status', '--dir', join(dir, 'state')].concat([
        '--pubkey',
        'ab'.repeat(32),
        '--machine-key-file',
        fifo,
      ]),
      { cwd: REPO_ROOT, encoding: 'utf8', timeout: 20_000 },
    );
    expect(run.signal).toBeNull();
    expect(run.stderr).toBe(
      `error CONFIG_INVALID: --machine-key-file ${fifo} is not a file\n  path: ${fifo}\n`,
    );
    expect(run.status).toBe(2);
  }, 30_000);
});

describe('machineKeyOf', () => {
  it('takes the flag, else the file, else the environment', async () => {
    const path = await keyFile('from-file\n', 0o600);
    expect(machineKeyOf('from-flag', undefined, 'from-env')).toBe('from-flag');
    expect(machineKeyOf(undefined, path, 'from-env')).toBe('from-file');
    expect(machineKeyOf(undefined, undefined, 'from-env')).toBe('from-env');
    expect(machineKeyOf(undefined, undefined, undefined)).toBe('');
  });

  it('refuses --machine-key and --machine-key-file together (CONFIG_INVALID)', () => {
    expect(refusal(() => machineKeyOf('a', '/x', undefined)).code).toBe('CONFIG_INVALID');
  });
});
