/**
 * The updater CLI contract, checked on a child process: exit codes (0 success, 1 refused,
 * 2 usage), exactly one JSON object on stdout with --json, `error <CODE>: <message>` on stderr,
 * the machine key from UPDATER_MACHINE_KEY, LOCKED while another process holds DIR, and DRIFT.
 */
import { spawn } from 'node:child_process';
import { access, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNodeUpdater } from '#node/create-updater.js';
import { sha256Hex, startHostileServer, type HostileServer } from '#test/hostile-server.js';
import { filesOf, snapshotTree } from '#test/tree-snapshot.js';
import {
  bytesOf,
  cliArgs,
  type CliTarget,
  openUpdater,
  REPO_ROOT,
  runCli,
  tempDirs,
  updateOnce,
  updaterCliArgv,
} from '#test/updater-harness.js';

const SHARED = bytesOf(20_000, 5);
const V1 = [
  { name: 'bin/app', content: bytesOf(30_000, 1) },
  { name: 'shared.dat', content: SHARED },
];
const V2 = [
  { name: 'bin/app', content: bytesOf(40_000, 2) },
  { name: 'shared.dat', content: SHARED },
];

/** One artifact large enough to stall halfway (setArtifactAttack). */
const BIG = bytesOf(2_000_000, 9);

const dirs = tempDirs();

/** Bytes of the partial downloads (`*.part`) under DIR/.updater/partial. */
async function partialBytes(dir: string): Promise<number> {
  const partial = join(dir, '.updater', 'partial');
  let total = 0;
  for (const name of await readdir(partial).catch(() => [])) {
    if (!name.endsWith('.part')) continue;
    total += (await stat(join(partial, name)).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

/**
 * Runs the CLI as a child, sends it `signal` (SIGINT: Ctrl-C) once `ready()` holds (polled
 * every 20 ms, at most 10 s), and resolves to its exit code and output.
 */
function interruptCli(
  args: readonly string[],
  ready: () => Promise<boolean>,
  signal: NodeJS.Signals = 'SIGINT',
): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...updaterCliArgv(), ...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString('utf8')));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('error', reject);
    child.once('close', (exitCode) => {
      clearTimeout(killer);
      resolve({ exitCode, stdout, stderr });
    });
    void (async () => {
      for (let i = 0; i < 500 && child.exitCode === null; i++) {
        if (await ready()) {
          child.kill(signal);
          return;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
  });
}
let server: HostileServer;
let target: CliTarget;

beforeEach(async () => {
  server = await startHostileServer();
  const dir = await dirs.make('qa-cli-');
  target = {
    baseUrl: server.baseUrl,
    machineKey: server.machineKey,
    pubkeyHex: server.pubkeyHex,
    dir,
  };
});

afterEach(async () => {
  await server.close();
  await dirs.cleanup();
});

describe('updater CLI contract', () => {
  it('check plans without downloading: exit 0 and one JSON object with the plan', async () => {
    await server.publish({ version: '1.0.0', files: V1 });
    const r = await runCli(cliArgs('check', target));
    expect(r.exitCode).toBe(0);
    expect(r.json).toMatchObject({
      ok: true,
      command: 'check',
      version: '1.0.0',
      installed_version: null,
      update_available: true,
      plan: {
        fetch: [
          { name: 'bin/app', size: 30_000 },
          { name: 'shared.dat', size: 20_000 },
        ],
        reuse: [],
        remove: [],
        bytes_to_fetch: 50_000,
        bytes_to_reuse: 0,
        artifacts: [
          { name: 'bin/app', size: 30_000, method: 'whole', fetch_bytes: 30_000, reused_bytes: 0 },
          {
            name: 'shared.dat',
            size: 20_000,
            method: 'whole',
            fetch_bytes: 20_000,
            reused_bytes: 0,
          },
        ],
      },
    });
    expect(server.bytesServed()).toBe(0);
  });

  it('check names each artifact fetched whole or reused once a release is installed', async () => {
    await server.publish({ version: '1.0.0', files: V1 });
    expect((await runCli(cliArgs('update', target))).exitCode).toBe(0);
    await server.publish({ version: '2.0.0', files: V2 });
    const r = await runCli(cliArgs('check', target));
    expect(r.exitCode).toBe(0);
    expect(r.json).toMatchObject({
      ok: true,
      update_available: true,
      plan: {
        bytes_to_fetch: 40_000,
        bytes_to_reuse: 20_000,
        artifacts: [
          {
            name: 'bin/app',
            method: 'whole',
            fetch_bytes: 40_000,
            reused_bytes: 0,
            index_bytes: 0,
          },
          { name: 'shared.dat', method: 'reuse', fetch_bytes: 0, reused_bytes: 20_000 },
        ],
      },
    });
  });

  it('update installs, reports bytes_downloaded, then reports up-to-date', async () => {
    await server.publish({ version: '1.0.0', files: V1 });
    const first = await runCli(cliArgs('update', target));
    expect(first.exitCode).toBe(0);
    expect(first.json).toMatchObject({ ok: true, command: 'update', outcome: 'applied' });
    expect(first.json?.['bytes_downloaded']).toBe(50_000);
    expect(filesOf(await snapshotTree(join(target.dir, 'current')))).toEqual({
      'bin/app': sha256Hex(V1[0]?.content ?? new Uint8Array()),
      'shared.dat': sha256Hex(SHARED),
    });
    const again = await runCli(cliArgs('update', target));
    expect(again.exitCode).toBe(0);
    expect(again.json).toMatchObject({ ok: true, outcome: 'up-to-date', version: '1.0.0' });
  });

  it('a refusal exits 1 with the code in the JSON and on stderr', async () => {
    await server.publish({ version: '1.0.0', files: V1 });
    server.setManifestAttack('bad-signature');
    const r = await runCli(cliArgs('update', target));
    expect(r.exitCode).toBe(1);
    expect(r.json).toMatchObject({ ok: false, command: 'update', code: 'SIGNATURE_INVALID' });
    expect(typeof r.json?.['message']).toBe('string');
    expect(r.stderr).toMatch(/^error SIGNATURE_INVALID: /m);
  });

  it('a usage error (no --pubkey) exits 2 with CONFIG_INVALID', async () => {
    const args = cliArgs('check', target).filter(
      (a, i, all) => a !== '--pubkey' && all[i - 1] !== '--pubkey',
    );
    const r = await runCli(args);
    expect(r.exitCode).toBe(2);
    expect(r.json).toMatchObject({ ok: false, code: 'CONFIG_INVALID' });
  });

  it('refuses a malformed test hook (UPDATER_TEST_WRITEBACK_BYTES) before anything runs', async () => {
    const r = await runCli(cliArgs('update', target), {
      env: { UPDATER_TEST_WRITEBACK_BYTES: '64k' },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('UPDATER_TEST_WRITEBACK_BYTES is no byte count');
  });

  it('takes the machine key from UPDATER_MACHINE_KEY when no flag is given', async () => {
    await server.publish({ version: '1.0.0', files: V1 });
    const args = cliArgs('check', target).filter(
      (a, i, all) => a !== '--machine-key' && all[i - 1] !== '--machine-key',
    );
    const r = await runCli(args, { env: { UPDATER_MACHINE_KEY: server.machineKey } });
    expect(r.exitCode).toBe(0);
    expect(r.json).toMatchObject({ ok: true, command: 'check', version: '1.0.0' });
  });

  it('takes the machine key from --machine-key-file (never seen in ps)', async () => {
    await server.publish({ version: '1.0.0', files: V1 });
    const file = join(await dirs.make('qa-key-'), 'machine-key');
    await writeFile(file, `${server.machineKey}\n`, { mode: 0o600 });
    const args = cliArgs('check', target).filter(
      (a, i, all) => a !== '--machine-key' && all[i - 1] !== '--machine-key',
    );
    const r = await runCli([...args, '--machine-key-file', file]);
    expect(r.exitCode).toBe(0);
    expect(r.json).toMatchObject({ ok: true, command: 'check', version: '1.0.0' });
  });

  it('refuses with LOCKED while another updater holds the state directory', async () => {
    await server.publish({ version: '1.0.0', files: V1 });
    const holder = await createNodeUpdater({ ...target, pubkeys: [server.pubkeyHex] });
    try {
      const r = await runCli(cliArgs('update', target));
      expect(r.exitCode).toBe(1);
      expect(r.json).toMatchObject({ ok: false, code: 'LOCKED' });
    } finally {
      await holder.close();
    }
  });

  it('status, rollback and status again report the versions', async () => {
    await server.publish({ version: '1.0.0', files: V1 });
    expect((await runCli(cliArgs('update', target))).exitCode).toBe(0);
    await server.publish({ version: '2.0.0', files: V2 });
    const upd = await runCli(cliArgs('update', target));
    // Only bin/app changed: shared.dat is reused, not downloaded again.
    expect(upd.json?.['bytes_downloaded']).toBe(40_000);
    const status = await runCli(cliArgs('status', target));
    expect(status.json).toMatchObject({
      ok: true,
      command: 'status',
      installed_version: '2.0.0',
      highest_accepted_version: '2.0.0',
      can_roll_back: true,
      last_error: null,
    });
    const back = await runCli(cliArgs('rollback', target));
    expect(back.exitCode).toBe(0);
    expect(back.json).toMatchObject({ ok: true, command: 'rollback', version: '1.0.0' });
    expect(filesOf(await snapshotTree(join(target.dir, 'current')))['bin/app']).toBe(
      sha256Hex(V1[0]?.content ?? new Uint8Array()),
    );
  });

  it('Ctrl-C during update: releases the lock, says how to resume, exits 130; rerun resumes', async () => {
    const big = BIG;
    await server.publish({ version: '1.0.0', files: [{ name: 'big.bin', content: big }] });
    server.setArtifactAttack('big.bin', { kind: 'stall', afterBytes: 1_200_000, holdMs: 20_000 });
    const r = await interruptCli(
      cliArgs('update', target),
      async () => (await partialBytes(target.dir)) > 0,
    );
    expect(r.exitCode).toBe(130);
    expect(r.stderr).toContain(
      'interrupted: run the same command again to resume; partial downloads are kept\n',
    );
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, command: 'update', code: 'ABORTED' });
    // Released, not left for a stale-lock takeover: the lock file is gone.
    await expect(access(join(target.dir, '.updater', 'lock'))).rejects.toThrow();
    const kept = await partialBytes(target.dir);
    expect(kept).toBeGreaterThan(0);
    server.setArtifactAttack('big.bin', undefined);
    const again = await runCli(cliArgs('update', target));
    expect(again.exitCode).toBe(0);
    expect(again.json).toMatchObject({ ok: true, outcome: 'applied' });
    expect(again.json?.['bytes_downloaded']).toBe(big.length - kept);
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)(
    '%s during update (kill, timeout, a closed terminal): releases the lock, keeps the partial bytes, exits %i',
    async (signal, code) => {
      await server.publish({ version: '1.0.0', files: [{ name: 'big.bin', content: BIG }] });
      server.setArtifactAttack('big.bin', { kind: 'stall', afterBytes: 1_200_000, holdMs: 20_000 });
      const r = await interruptCli(
        cliArgs('update', target),
        async () => (await partialBytes(target.dir)) > 0,
        signal,
      );
      expect(r.exitCode).toBe(code);
      expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, command: 'update', code: 'ABORTED' });
      await expect(access(join(target.dir, '.updater', 'lock'))).rejects.toThrow();
      expect(await partialBytes(target.dir)).toBeGreaterThan(0);
    },
  );

  it('check after rollback reports the bytes update really moves (none: blobs are kept)', async () => {
    // The set-up runs in-process (each CLI child costs seconds on a loaded machine).
    await server.publish({ version: '1.0.0', files: V1 });
    await updateOnce(server, target.dir);
    await server.publish({ version: '2.0.0', files: V2 });
    await updateOnce(server, target.dir);
    const updater = await openUpdater(server, target.dir);
    await updater.rollback().finally(() => updater.close());
    const served = server.bytesServed();
    const check = await runCli(cliArgs('check', target));
    expect(check.json).toMatchObject({
      ok: true,
      version: '2.0.0',
      installed_version: '1.0.0',
      update_available: true,
      plan: { fetch: [], bytes_to_fetch: 0, bytes_to_reuse: 60_000 },
    });
    const update = await runCli(cliArgs('update', target));
    expect(update.json).toMatchObject({ ok: true, outcome: 'applied', version: '2.0.0' });
    expect(update.json?.['bytes_downloaded']).toBe(0);
    expect(server.bytesServed()).toBe(served);
  });

  it('verify reports a modified installed file as DRIFT (exit 1)', async () => {
    await server.publish({ version: '1.0.0', files: V1 });
    expect((await runCli(cliArgs('update', target))).exitCode).toBe(0);
    await writeFile(join(target.dir, 'current', 'bin/app'), 'tampered');
    const r = await runCli(cliArgs('verify', target));
    expect(r.exitCode).toBe(1);
    expect(r.json).toMatchObject({
      ok: false,
      command: 'verify',
      code: 'DRIFT',
      drift: [{ name: 'bin/app', problem: 'modified' }],
    });
  });
});
