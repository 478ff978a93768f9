/**
 * Health check and automatic revert (docs/UPDATER.md §3, Health check): a release whose check
 * fails (or times out, or is not confirmed) is reverted with the live set byte-identical to the
 * previous one, recorded bad (state, audit log, event) and never installed again, while a newer
 * release installs normally; kill -9 during the check and during the revert, then a normal run,
 * finishes the decision.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyAuditLog } from '#core/install/audit-log.js';
import type { UpdateEvent } from '#core/events.js';
import type { UpdaterApi } from '#core/updater-api.js';
import { resolveCurrentSet, SWAP_STRATEGIES, type SwapStrategy } from '#node/store/current-set.js';
import type { NodeUpdaterOptions } from '#node/create-updater.js';
import { startHostileServer, type HostileServer } from '#test/hostile-server.js';
import { snapshotObject, snapshotTree } from '#test/tree-snapshot.js';
import {
  bytesOf,
  cliArgs,
  expectRefusal,
  openUpdater,
  REPO_ROOT,
  runCli,
  tempDirs,
  updaterCliArgv,
} from '#test/updater-harness.js';

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const V1 = [
  { name: 'app.bin', content: bytesOf(40 * 1024, 1) },
  { name: 'VERSION', content: text('1.0.0\n') },
];
const V2 = [
  { name: 'app.bin', content: bytesOf(48 * 1024, 2) },
  { name: 'VERSION', content: text('2.0.0\n') },
  { name: 'extra.txt', content: text('only in 2\n') },
];
const V3 = [
  { name: 'app.bin', content: bytesOf(52 * 1024, 3) },
  { name: 'VERSION', content: text('3.0.0\n') },
];

const dirs = tempDirs();
let server: HostileServer;
let dir: string;
const open: UpdaterApi[] = [];

/** A fresh updater (a restart): earlier ones are closed first, as they hold DIR's lock. */
async function updater(overrides: Partial<NodeUpdaterOptions> = {}): Promise<UpdaterApi> {
  await Promise.all(open.splice(0).map((u) => u.close()));
  const u = await openUpdater(server, dir, overrides);
  open.push(u);
  return u;
}

async function live(): Promise<Record<string, string>> {
  return snapshotObject(await snapshotTree((await resolveCurrentSet(dir)) ?? join(dir, 'current')));
}

/** Installs 1.0.0 (no health check) and publishes 2.0.0; returns the 1.0.0 snapshot. */
async function installV1ThenPublishV2(swap?: SwapStrategy): Promise<Record<string, string>> {
  await server.publish({ version: '1.0.0', files: V1 });
  expect((await (await updater(swap === undefined ? {} : { swap })).update()).outcome).toBe(
    'applied',
  );
  // Closed: the CLI runs of a test must be able to take DIR's lock.
  await Promise.all(open.splice(0).map((u) => u.close()));
  const before = await live();
  await server.publish({ version: '2.0.0', files: V2 });
  return before;
}

/** Installs 2.0.0 alone in a scratch DIR (no check): the expected snapshot of the new set. */
async function snapshotOf(files: typeof V2, version: string): Promise<Record<string, string>> {
  const scratch = await dirs.make('qa-health-ref-');
  const other = await startHostileServer();
  try {
    await other.publish({ version, files });
    const u = await openUpdater(other, scratch);
    await u.update();
    await u.close();
    return snapshotObject(
      await snapshotTree((await resolveCurrentSet(scratch)) ?? join(scratch, 'current')),
    );
  } finally {
    await other.close();
  }
}

async function auditEvents(): Promise<{ version: string; event?: string; reason?: string }[]> {
  const checked = verifyAuditLog(await readFile(join(dir, '.updater', 'audit.log'), 'utf8'));
  if (!checked.ok) throw new Error(`audit chain broken at ${checked.brokenAt}`);
  return checked.entries;
}

const failing = { mode: 'function', check: () => false } as const;
const passing = { mode: 'function', check: () => true } as const;

beforeEach(async () => {
  server = await startHostileServer();
  dir = await dirs.make('qa-health-');
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((u) => u.close()));
  await server.close();
  await dirs.cleanup();
});

describe.each(SWAP_STRATEGIES)('a failed health check (swap %s)', (swap) => {
  it('reverts: the live set is byte-identical to the previous one; bad in state, audit log and events', async () => {
    const before = await installV1ThenPublishV2(swap);
    const u = await updater({ swap, health: failing });
    const events: UpdateEvent[] = [];
    u.on((e) => events.push(e));
    const error = await expectRefusal(u.update(), 'HEALTH_CHECK_FAILED');
    expect(error.message).toContain('2.0.0 failed its health check');
    expect(error.message).toContain('1.0.0 restored');
    expect(await live()).toEqual(before);
    const status = await u.status();
    expect(status.installedVersion).toBe('1.0.0');
    expect(status.probation).toBeNull();
    expect(status.badVersions.map((b) => b.version)).toEqual(['2.0.0']);
    expect(status.lastError?.code).toBe('HEALTH_CHECK_FAILED');
    expect(events.map((e) => e.type).filter((t) => t !== 'progress')).toEqual([
      'checking',
      'update-available',
      'applied',
      'probation',
      'reverted',
      'error',
    ]);
    expect(events.find((e) => e.type === 'reverted')).toMatchObject({
      version: '2.0.0',
      restoredVersion: '1.0.0',
      reason: 'the check returned false',
    });
    const marked = (await auditEvents()).filter((e) => e.event === 'marked-bad');
    expect(marked).toMatchObject([{ version: '2.0.0', reason: 'the check returned false' }]);
    // And the restored set is the signed 1.0.0, untouched.
    expect((await u.verify()).drift).toEqual([]);
  });
});

describe('after a revert', () => {
  it('does not install the bad version again: check and update report it skipped', async () => {
    const before = await installV1ThenPublishV2();
    await expectRefusal((await updater({ health: failing })).update(), 'HEALTH_CHECK_FAILED');
    let probes = 0;
    const counting = {
      mode: 'function',
      check: () => {
        probes += 1;
        return true;
      },
    } as const;
    server.resetCounters();
    const u = await updater({ health: counting });
    const plan = await u.check();
    expect(plan.toVersion).toBe('2.0.0');
    expect(plan.skipped?.reason).toBe('failed its health check: the check returned false');
    const result = await u.update();
    expect(result.outcome).toBe('skipped');
    expect(result.skipped).toEqual({
      version: '2.0.0',
      reason: 'failed its health check: the check returned false',
    });
    expect(result.bytesDownloaded).toBe(0);
    expect(server.bytesServed()).toBe(0);
    expect(probes).toBe(0);
    expect(await live()).toEqual(before);
    expect((await u.status()).lastError).toBeNull();
  });

  it('installs a newer version normally (its check passes)', async () => {
    await installV1ThenPublishV2();
    await expectRefusal((await updater({ health: failing })).update(), 'HEALTH_CHECK_FAILED');
    await server.publish({ version: '3.0.0', files: V3 });
    const u = await updater({ health: passing });
    const result = await u.update();
    expect(result.outcome).toBe('applied');
    expect(result.version).toBe('3.0.0');
    expect(await live()).toEqual(await snapshotOf(V3, '3.0.0'));
    const status = await u.status();
    expect(status.probation).toBeNull();
    expect(status.canRollBack).toBe(true);
    expect(await u.rollback()).toEqual({ version: '1.0.0' });
  });

  it('the CLI reports the skip in check --json and update --json (exit 0)', async () => {
    await installV1ThenPublishV2();
    const target = { ...server, dir };
    const failed = await runCli(cliArgs('update', target, ['--health-cmd', 'exit 3']));
    expect(failed.exitCode).toBe(1);
    expect(failed.json).toMatchObject({ ok: false, code: 'HEALTH_CHECK_FAILED' });
    const check = await runCli(cliArgs('check', target, ['--health-cmd', 'exit 0']));
    expect(check.exitCode).toBe(0);
    expect(check.json).toMatchObject({
      ok: true,
      update_available: false,
      skipped: {
        version: '2.0.0',
        reason: 'failed its health check: the command exited with code 3',
      },
    });
    const update = await runCli(cliArgs('update', target, ['--health-cmd', 'exit 0']));
    expect(update.exitCode).toBe(0);
    expect(update.json).toMatchObject({
      ok: true,
      outcome: 'skipped',
      skipped: { version: '2.0.0' },
    });
    const status = await runCli(cliArgs('status', target));
    expect(status.json).toMatchObject({
      installed_version: '1.0.0',
      current_path: await resolveCurrentSet(dir),
      probation: null,
      bad_versions: [{ version: '2.0.0' }],
    });
  });
});

describe('the health command', () => {
  it('runs with UPDATER_SET_PATH = the new set (its cwd too), and without the machine key', async () => {
    await installV1ThenPublishV2();
    const out = join(dir, 'probe.txt');
    const result = await runCli(
      cliArgs('update', { ...server, dir }, [
        '--health-cmd',
        `cat VERSION > "${out}"; echo "$UPDATER_SET_PATH|$UPDATER_SET_VERSION|\${UPDATER_MACHINE_KEY:-none}" >> "${out}"`,
      ]),
      { env: { UPDATER_MACHINE_KEY: 'mk_secret' } },
    );
    expect(result.json).toMatchObject({ ok: true, outcome: 'applied', version: '2.0.0' });
    const [version, env] = (await readFile(out, 'utf8')).trim().split('\n');
    expect(version).toBe('2.0.0');
    expect(env).toBe(`${(await resolveCurrentSet(dir)) ?? ''}|2.0.0|none`);
  });

  it('times out: the command is killed and the release reverted', async () => {
    const before = await installV1ThenPublishV2();
    const pidFile = join(dir, 'check.pid');
    const started = Date.now();
    const result = await runCli(
      cliArgs('update', { ...server, dir }, [
        '--health-cmd',
        `echo $$ > "${pidFile}"; exec sleep 30`,
        '--health-timeout-s',
        '1',
      ]),
    );
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.json).toMatchObject({ ok: false, code: 'HEALTH_CHECK_FAILED' });
    expect(String(result.json?.['message'])).toContain('timed out after 1 s');
    expect(await live()).toEqual(before);
    const pid = Number(await readFile(pidFile, 'utf8'));
    expect(isAlive(pid)).toBe(false);
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitForFile(path: string, timeoutMs = 20_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const content = await readFile(path, 'utf8').catch(() => '');
    if (content.trim() !== '') return content;
    if (Date.now() > until) throw new Error(`${path} never appeared`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('kill -9 during the health check', () => {
  for (const next of ['fails', 'passes'] as const) {
    it(`leaves the new set on probation; the next run re-checks and ${next === 'fails' ? 'reverts' : 'keeps it'}`, async () => {
      const before = await installV1ThenPublishV2();
      const after = await snapshotOf(V2, '2.0.0');
      const pidFile = join(dir, 'check.pid');
      const child = spawn(
        process.execPath,
        [
          ...updaterCliArgv(),
          ...cliArgs('update', { ...server, dir }, [
            '--health-cmd',
            `echo $$ > "${pidFile}"; exec sleep 30`,
          ]),
        ],
        { cwd: REPO_ROOT, stdio: 'ignore' },
      );
      const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_c, s) => r(s)));
      const checkPid = Number(await waitForFile(pidFile));
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      process.kill(checkPid, 'SIGKILL'); // the orphaned check (its own process group)

      expect(await live()).toEqual(after);
      const status = await (await updater()).status();
      expect(status.installedVersion).toBe('2.0.0');
      expect(status.probation).toMatchObject({ version: '2.0.0', mode: 'check' });

      const u = await updater({ health: next === 'fails' ? failing : passing });
      const result = await u.update();
      if (next === 'fails') {
        expect(result.outcome).toBe('skipped');
        expect(await live()).toEqual(before);
        expect((await u.status()).badVersions.map((b) => b.version)).toEqual(['2.0.0']);
      } else {
        expect(result.outcome).toBe('up-to-date');
        expect(await live()).toEqual(after);
        expect((await u.status()).probation).toBeNull();
      }
    });
  }
});

describe('kill -9 during the revert', () => {
  // After the failed verdict is durable; then inside the revert's own journaled switch.
  const steps = [
    'health-verdict-recorded',
    'health-bad-audited',
    'journal-written@2',
    'current-swapped@2',
    'state-written@2',
    'journal-removed@2',
    'health-reverted',
  ];
  for (const step of steps) {
    it(`at "${step}": the new set on probation or the old one; the next run reverts without re-checking`, async () => {
      const before = await installV1ThenPublishV2();
      const after = await snapshotOf(V2, '2.0.0');
      const crashed = await runCli(
        cliArgs('update', { ...server, dir }, ['--health-cmd', 'echo broken >&2; exit 1']),
        { env: { UPDATER_TEST_CRASH_AT: step } },
      );
      expect(crashed.signal, `the child must reach "${step}"`).toBe('SIGKILL');
      const swapped = steps.indexOf(step) >= steps.indexOf('current-swapped@2');
      expect(await live()).toEqual(swapped ? before : after);

      // A check that would now pass is not run: the failed verdict was already durable.
      const u = await updater({ health: passing });
      const result = await u.update();
      expect(result.outcome).toBe('skipped');
      expect(await live()).toEqual(before);
      const status = await u.status();
      expect(status.installedVersion).toBe('1.0.0');
      expect(status.probation).toBeNull();
      expect(status.badVersions).toMatchObject([
        { version: '2.0.0', reason: 'the command exited with code 1: broken' },
      ]);
      const marked = (await auditEvents()).filter((e) => e.event === 'marked-bad');
      expect(marked.length).toBeGreaterThanOrEqual(1);
      expect((await u.verify()).drift).toEqual([]);
    });
  }
});

describe('confirmation mode', () => {
  const HOUR = 3_600_000;
  const skewed = (ms: number) => ({ nowMs: () => Date.now() + ms });

  it('without confirm(): the next run after the deadline reverts', async () => {
    const before = await installV1ThenPublishV2();
    const u = await updater({ health: { mode: 'confirm', timeoutMs: HOUR } });
    const result = await u.update();
    expect(result.outcome).toBe('applied');
    expect(result.probation?.deadlineAtMs).toBeGreaterThan(Date.now());
    const after = await live();
    expect(after).not.toEqual(before);
    // A run before the deadline leaves it on probation.
    const early = await updater({ health: { mode: 'confirm', timeoutMs: HOUR } });
    expect((await early.update()).outcome).toBe('up-to-date');
    expect((await early.status()).probation).toMatchObject({ version: '2.0.0', mode: 'confirm' });
    expect(await live()).toEqual(after);
    // The next start after the deadline reverts, then skips 2.0.0.
    const late = await updater({ health: { mode: 'confirm' }, clock: skewed(2 * HOUR) });
    const events: UpdateEvent[] = [];
    late.on((e) => events.push(e));
    expect((await late.update()).outcome).toBe('skipped');
    expect(await live()).toEqual(before);
    expect(events.find((e) => e.type === 'reverted')).toMatchObject({
      version: '2.0.0',
      reason: 'not confirmed within 3600 s',
    });
  });

  it('with confirm(): the set stays after the deadline', async () => {
    await installV1ThenPublishV2();
    const u = await updater({ health: { mode: 'confirm', timeoutMs: HOUR } });
    expect((await u.update()).outcome).toBe('applied');
    const after = await live();
    expect(await u.confirm()).toEqual({ version: '2.0.0', confirmed: true });
    expect(await u.confirm()).toEqual({ version: '2.0.0', confirmed: false });
    const late = await updater({ health: { mode: 'confirm' }, clock: skewed(2 * HOUR) });
    expect((await late.update()).outcome).toBe('up-to-date');
    expect(await live()).toEqual(after);
    expect((await late.status()).probation).toBeNull();
  });

  it('on the CLI: update --health confirm, then the confirm subcommand', async () => {
    await installV1ThenPublishV2();
    const target = { ...server, dir };
    const update = await runCli(cliArgs('update', target, ['--health', 'confirm']));
    expect(update.json).toMatchObject({ ok: true, outcome: 'applied', version: '2.0.0' });
    expect(update.json?.['awaiting_confirmation']).toMatchObject({
      deadline_at_ms: expect.any(Number) as number,
    });
    const pending = await runCli(cliArgs('status', target));
    expect(pending.json).toMatchObject({ probation: { version: '2.0.0', mode: 'confirm' } });
    const confirm = await runCli(cliArgs('confirm', target));
    expect(confirm.json).toEqual({
      ok: true,
      command: 'confirm',
      version: '2.0.0',
      confirmed: true,
    });
    const done = await runCli(cliArgs('status', target));
    expect(done.json).toMatchObject({ installed_version: '2.0.0', probation: null });
  });

  it('on the CLI without confirm: the next run after the deadline reverts', async () => {
    const before = await installV1ThenPublishV2();
    const target = { ...server, dir };
    const update = await runCli(
      cliArgs('update', target, ['--health', 'confirm', '--health-timeout-s', '1']),
    );
    expect(update.json).toMatchObject({ ok: true, outcome: 'applied' });
    await new Promise((r) => setTimeout(r, 1_100));
    const next = await runCli(cliArgs('update', target));
    expect(next.json).toMatchObject({ ok: true, outcome: 'skipped' });
    expect(await live()).toEqual(before);
  });
});
