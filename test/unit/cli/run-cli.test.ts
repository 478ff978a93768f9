import { chmod, readdir, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RESUME_HINT, runCli } from '#cli/run-cli.js';
import { createNodeUpdater } from '#node/create-updater.js';
import { text } from '#test/fakes.js';
import { startLocalRegistry, type LocalRegistry } from '#test/local-registry.js';
import { tempDirs } from '#test/temp-dir.js';

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
  options: { tty?: boolean; env?: string; nowMs?: () => number; interrupt?: AbortSignal } = {},
) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    args,
    { machineKey: options.env, interrupt: options.interrupt },
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

/** Bytes of the partial downloads (`*.part`) under DIR/.updater/partial. */
async function partialBytes(stateDir: string): Promise<number> {
  const partial = join(stateDir, '.updater', 'partial');
  let total = 0;
  for (const name of await readdir(partial).catch(() => [])) {
    if (!name.endsWith('.part')) continue;
    total += (await stat(join(partial, name)).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

/** Polls `condition` every 20 ms, for at most 10 s. */
async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('condition not met in 10 s');
}

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
        artifacts: [
          {
            name: 'a.txt',
            size: 3,
            method: 'whole',
            fetch_bytes: 3,
            reused_bytes: 0,
            index_bytes: 0,
          },
        ],
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

  it('check and update connect to the registry before they take the lock; status does not', async () => {
    registry.publish('1.0.0', V1);
    // Another updater holds DIR's lock: every command below stops at LOCKED.
    const holder = await createNodeUpdater({
      baseUrl: registry.baseUrl,
      machineKey: 'mk',
      pubkeys: [registry.pubkeyHex],
      dir,
    });
    try {
      const status = await cli(['status', ...common(), '--json']);
      expect(JSON.parse(status.stdout)).toMatchObject({ ok: false, code: 'LOCKED' });
      expect(registry.connections).toBe(0);
      for (const command of ['check', 'update']) {
        const run = await cli([command, ...common(), '--json']);
        expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'LOCKED' });
      }
      // One warm connection each, opened before the lock refused them; nothing was asked.
      await until(() => Promise.resolve(registry.connections === 2));
      expect(registry.requests).toEqual([]);
    } finally {
      await holder.close();
    }
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

  it('an UNKNOWN_KEY names the keyids seen and pinned, in text and in --json', async () => {
    registry.publish('1.0.0', V1);
    const wrong = 'c'.repeat(64);
    const args = common().map((a) => (a === registry.pubkeyHex ? wrong : a));
    const text = await cli(['check', ...args]);
    expect(text.code).toBe(1);
    expect(text.stderr).toMatch(/^error UNKNOWN_KEY: no signature by a pinned key/m);
    expect(text.stderr).toMatch(/^ {2}keyids_seen: [0-9a-f]{64}$/m);
    expect(text.stderr).toMatch(/^ {2}keyids_pinned: [0-9a-f]{64}$/m);
    const json = JSON.parse((await cli(['check', ...args, '--json'])).stdout) as {
      details: { keyids_seen: string[]; keyids_pinned: string[] };
    };
    expect(json).toMatchObject({ ok: false, code: 'UNKNOWN_KEY' });
    expect(json.details.keyids_seen).toHaveLength(1);
    expect(json.details.keyids_pinned).toHaveLength(1);
    expect(json.details.keyids_seen[0]).not.toBe(json.details.keyids_pinned[0]);
  });

  it('an HTTP_STATUS names the URL and status, never the machine key', async () => {
    registry.publish('1.0.0', V1);
    registry.hook = (req, res) => {
      if (!(req.url ?? '').startsWith('/elsewhere/')) return false;
      res.writeHead(404);
      res.end();
      return true;
    };
    const base = `${registry.baseUrl}/elsewhere/`;
    const args = common().map((a) => (a === registry.baseUrl ? base : a));
    const r = await cli(['check', ...args.map((a) => (a === 'mk' ? 'mk-s3cret' : a)), '--json']);
    expect(r.code).toBe(1);
    const url = `${base}api/updates/manifest`;
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: false,
      code: 'HTTP_STATUS',
      details: { url, status: 404 },
    });
    expect(r.stderr).toContain(`  url: ${url}\n`);
    expect(r.stdout + r.stderr).not.toContain('mk-s3cret');
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

  it('takes the machine key from --machine-key-file, and refuses one others can read', async () => {
    registry.publish('1.0.0', V1);
    const file = join(await dirs.make(), 'machine-key');
    await writeFile(file, 'mk\n', { mode: 0o600 });
    await chmod(file, 0o600);
    const args = common().filter(
      (a, i, all) => a !== '--machine-key' && all[i - 1] !== '--machine-key',
    );
    const ok = await cli(['check', ...args, '--machine-key-file', file, '--json']);
    expect(ok.code).toBe(0);
    await chmod(file, 0o644);
    const refused = await cli(['check', ...args, '--machine-key-file', file]);
    expect(refused.code).toBe(2);
    // One clear line (and the details), not the whole usage text.
    expect(refused.stderr).toMatch(/^error CONFIG_INVALID: --machine-key-file .* chmod o-rwx /m);
    expect(refused.stderr).not.toContain('usage:');
  });

  it('--dir naming a file (or below one): CONFIG_INVALID, exit 2, "is not a directory"', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, 'x');
    for (const target of [file, join(file, 'below')]) {
      const args = common().slice(0, -1).concat(target);
      const r = await cli(['status', ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr.split('\n')[0]).toBe(
        `error CONFIG_INVALID: the state directory ${target} is not a directory`,
      );
    }
  });

  it('Ctrl-C during update: lock released, one line on how to resume, exit 130', async () => {
    const big = new Uint8Array(1_000_000).map((_, i) => (i * 7) % 251);
    registry.publish('1.0.0', [{ name: 'big.bin', content: big }]);
    // The first artifact answer sends 600 kB and then holds the connection open.
    let held = false;
    registry.hook = (req, res) => {
      if (held || req.url === '/api/updates/manifest') return false;
      held = true;
      res.writeHead(200, { 'content-length': big.length });
      res.write(big.subarray(0, 600_000));
      return true;
    };
    const interrupt = new AbortController();
    const run = cli(['update', ...common(), '--json'], { interrupt: interrupt.signal });
    await until(async () => (await partialBytes(dir)) > 0);
    interrupt.abort();
    const r = await run;
    expect(r.code).toBe(130);
    expect(r.stderr.split('\n')).toContain(RESUME_HINT);
    expect(JSON.parse(r.stdout)).toEqual({
      ok: false,
      command: 'update',
      code: 'ABORTED',
      message: RESUME_HINT,
    });
    // The lock is free (no LOCKED) and the partial bytes are kept: the rerun resumes.
    const again = await cli(['update', ...common(), '--json']);
    expect(again.code).toBe(0);
    const result = JSON.parse(again.stdout) as { outcome: string; bytes_downloaded: number };
    expect(result.outcome).toBe('applied');
    expect(result.bytes_downloaded).toBeLessThan(big.length);
  });

  it('Ctrl-C before a local command runs: exit 130, "interrupted"', async () => {
    const interrupt = new AbortController();
    interrupt.abort();
    const r = await cli(['status', ...common()], { interrupt: interrupt.signal });
    expect(r.code).toBe(130);
    expect(r.stderr).toBe('interrupted\n');
    expect(r.stdout).toBe('');
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ])('stopped by %s before a local command runs: exit %i, "interrupted"', async (signal, code) => {
    const interrupt = new AbortController();
    interrupt.abort(signal);
    const r = await cli(['status', ...common()], { interrupt: interrupt.signal });
    expect(r.code).toBe(code);
    expect(r.stderr).toBe('interrupted\n');
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
