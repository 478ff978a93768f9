import { chmod, readlink, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run-cli.js';
import { text } from '../core/fakes.js';
import { startLocalRegistry, type LocalRegistry } from '../node/local-registry.js';
import { tempDirs } from '../node/temp-dir.js';

const dirs = tempDirs();
let registry: LocalRegistry;
let dir: string;

beforeEach(async () => {
  registry = await startLocalRegistry();
  dir = await dirs.make();
});

afterEach(async () => {
  await registry.close();
  await dirs.cleanup();
});

async function cli(
  args: string[],
  options: { tty?: boolean; env?: string; nowMs?: () => number } = {},
) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    args,
    { machineKey: options.env },
    {
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      stderrIsTty: options.tty ?? false,
      columns: 80,
      nowMs: options.nowMs ?? (() => Date.now()),
    },
  );
  return { code, stdout, stderr };
}

function common(): string[] {
  return [
    '--base-url',
    registry.baseUrl,
    '--machine-key',
    'mk',
    '--pubkey',
    registry.pubkeyHex,
    '--dir',
    dir,
  ];
}

const V1 = [{ name: 'a.txt', content: text('one') }];

describe('updater CLI', () => {
  it('check --json prints exactly one JSON object with the plan', async () => {
    registry.publish('1.0.0', V1);
    const r = await cli(['check', ...common(), '--json']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(r.stdout)).toEqual({
      ok: true,
      command: 'check',
      version: '1.0.0',
      installed_version: null,
      update_available: true,
      plan: {
        fetch: [{ name: 'a.txt', size: 3 }],
        reuse: [],
        remove: [],
        bytes_to_fetch: 3,
        bytes_to_reuse: 0,
      },
    });
  });

  it('update --json reports applied, then up-to-date', async () => {
    registry.publish('1.0.0', V1);
    const first = JSON.parse((await cli(['update', ...common(), '--json'])).stdout) as Record<
      string,
      unknown
    >;
    expect(first).toMatchObject({
      ok: true,
      command: 'update',
      outcome: 'applied',
      version: '1.0.0',
      bytes_downloaded: 3,
    });
    const second = JSON.parse((await cli(['update', ...common(), '--json'])).stdout) as Record<
      string,
      unknown
    >;
    expect(second).toMatchObject({ outcome: 'up-to-date', bytes_downloaded: 0 });
  });

  it('update --json repairs a deleted installed file and lists it in "repaired"', async () => {
    registry.publish('1.0.0', V1);
    await cli(['update', ...common()]);
    await rm(join(dir, 'current', 'a.txt'));
    const r = await cli(['update', ...common(), '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: true,
      command: 'update',
      outcome: 'applied',
      version: '1.0.0',
      bytes_downloaded: 0,
      repaired: ['a.txt'],
    });
    const verify = JSON.parse((await cli(['verify', ...common(), '--json'])).stdout) as Record<
      string,
      unknown
    >;
    expect(verify).toMatchObject({ ok: true, drift: [] });
  });

  it('uses the entry point clock for expiry: a frozen manifest is MANIFEST_EXPIRED', async () => {
    registry.publish('1.0.0', V1);
    await cli(['update', ...common()]);
    const later = Date.now() + 400 * 86_400_000;
    const r = await cli(['update', ...common(), '--json'], { nowMs: () => later });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, code: 'MANIFEST_EXPIRED' });
  });

  it('status, verify and rollback speak the contract', async () => {
    registry.publish('1.0.0', V1);
    await cli(['update', ...common()]);
    registry.publish('1.1.0', [{ name: 'a.txt', content: text('two') }]);
    await cli(['update', ...common()]);
    const status = JSON.parse((await cli(['status', ...common(), '--json'])).stdout) as Record<
      string,
      unknown
    >;
    expect(status).toEqual({
      ok: true,
      command: 'status',
      installed_version: '1.1.0',
      highest_accepted_version: '1.1.0',
      can_roll_back: true,
      last_error: null,
      current_path: join(dir, '.updater', 'sets', basename(await readlink(join(dir, 'current')))),
      probation: null,
      bad_versions: [],
    });
    const verify = JSON.parse((await cli(['verify', ...common(), '--json'])).stdout) as Record<
      string,
      unknown
    >;
    expect(verify).toEqual({ ok: true, command: 'verify', version: '1.1.0', drift: [] });
    const rollback = JSON.parse((await cli(['rollback', ...common(), '--json'])).stdout) as Record<
      string,
      unknown
    >;
    expect(rollback).toEqual({ ok: true, command: 'rollback', version: '1.0.0' });
  });

  it('a refusal exits 1 with the code in JSON and on stderr', async () => {
    registry.publish('1.0.0', V1);
    const r = await cli(['update', ...common().map((a) => (a === 'mk' ? 'wrong' : a)), '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: false,
      command: 'update',
      code: 'UNAUTHORIZED',
    });
    expect(r.stderr).toMatch(/^error UNAUTHORIZED: /m);
  });

  it('a usage error exits 2 with CONFIG_INVALID', async () => {
    const r = await cli(['update', '--dir', dir, '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: false,
      command: 'update',
      code: 'CONFIG_INVALID',
    });
  });

  it('--help prints the usage on stdout and exits 0, touching nothing', async () => {
    const r = await cli(['update', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('usage: npm run updater');
    expect(r.stderr).toBe('');
  });

  it('verify with drift exits 1 with DRIFT and lists it', async () => {
    registry.publish('1.0.0', V1);
    await cli(['update', ...common()]);
    await chmod(join(dir, 'current', 'a.txt'), 0o644);
    await writeFile(join(dir, 'current', 'a.txt'), 'tampered');
    const r = await cli(['verify', ...common(), '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: false,
      code: 'DRIFT',
      drift: [{ name: 'a.txt', problem: 'modified' }],
    });
  });

  it('takes the machine key from the environment', async () => {
    registry.publish('1.0.0', V1);
    const args = common().filter(
      (a, i, all) => a !== '--machine-key' && all[i - 1] !== '--machine-key',
    );
    const r = await cli(['check', ...args, '--json'], { env: 'mk' });
    expect(r.code).toBe(0);
  });

  it('draws a progress bar on a TTY, never with --json', async () => {
    registry.publish('1.0.0', V1);
    const tty = await cli(['update', ...common()], { tty: true });
    expect(tty.stderr).toContain('100%');
    registry.publish('1.1.0', [{ name: 'a.txt', content: text('two') }]);
    const json = await cli(['update', ...common(), '--json'], { tty: true });
    expect(json.stderr).not.toContain('%');
  });
});
