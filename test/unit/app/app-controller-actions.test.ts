/**
 * The window's actions on the app controller (docs/DESKTOP.md "Updates"): Cancel (close and
 * reopen the core, no backoff), Roll back (then paused), Verify (drift in plain words), Open
 * log, pause remembered; download speed and time left; one notice per refused version.
 */
import { describe, expect, it } from 'vitest';
import { UpdateError } from '#core/errors.js';
import type { UpdateEvent, UpdateListener } from '#core/events.js';
import type { UpdaterApi, UpdaterStatus, VerifyReport } from '#core/updater-api.js';
import { createAppController } from '#app/app-controller.js';

const PLAN = {
  fromVersion: '1.0.0',
  toVersion: '2.0.0',
  fetch: [{ name: 'a.bin', size: 1000 }],
  reuse: [],
  remove: [],
  bytesToFetch: 1000,
  bytesToReuse: 0,
  artifacts: [
    {
      name: 'a.bin',
      size: 1000,
      method: 'whole' as const,
      fetchBytes: 1000,
      reusedBytes: 0,
      indexBytes: 0,
    },
  ],
};

interface Fake extends UpdaterApi {
  emit(event: UpdateEvent): void;
  closed: number;
  runs: number;
}

/** update() emits a plan, then hangs until close() aborts it (as the core does). */
function hangingUpdater(
  options: { verify?: VerifyReport; rollback?: Error; checkTo?: string } = {},
): Fake {
  const listeners = new Set<UpdateListener>();
  let abort: (error: Error) => void = () => undefined;
  const core: UpdaterStatus = {
    installedVersion: '1.0.0',
    highestAcceptedVersion: '1.0.0',
    lastCheckAtMs: null,
    lastSuccessAtMs: null,
    lastError: null,
    running: false,
    canRollBack: true,
    probation: null,
    badVersions: [],
  };
  const fake: Fake = {
    closed: 0,
    runs: 0,
    emit: (event) => {
      for (const l of listeners) l(event);
    },
    check: () => Promise.resolve({ ...PLAN, toVersion: options.checkTo ?? PLAN.toVersion }),
    update() {
      fake.runs += 1;
      fake.emit({ type: 'checking', atMs: 1 });
      fake.emit({ type: 'update-available', plan: PLAN, atMs: 2 });
      return new Promise((_resolve, reject) => {
        abort = reject;
      });
    },
    status: () => Promise.resolve(core),
    confirm: () => Promise.resolve({ version: null, confirmed: false }),
    rollback: () =>
      options.rollback === undefined
        ? Promise.resolve({ version: '0.9.0' })
        : Promise.reject(options.rollback),
    verify: () => Promise.resolve(options.verify ?? { version: '1.0.0', ok: true, drift: [] }),
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      fake.closed += 1;
      fake.emit({ type: 'error', code: 'ABORTED', message: 'aborted', atMs: 3 });
      abort(new UpdateError('ABORTED', 'aborted'));
      return Promise.resolve();
    },
  };
  return fake;
}

function setup(
  updater: Fake,
  extra: { reopen?: () => Promise<UpdaterApi>; now?: () => number } = {},
) {
  const persisted: boolean[] = [];
  const notices: string[] = [];
  const schedulerCalls: string[] = [];
  let run: () => Promise<void> = () => Promise.resolve();
  const app = createAppController({
    updater,
    registryLabel: 'r',
    fetchActivity: () => Promise.resolve({ state: 'offline', message: 'x' }),
    notify: (n) => notices.push(n.title),
    persistPaused: (p) => persisted.push(p),
    openLog: () => Promise.resolve(),
    ...(extra.reopen === undefined ? {} : { reopen: extra.reopen }),
    ...(extra.now === undefined ? {} : { nowMs: extra.now }),
    createScheduler: (r) => {
      run = r;
      return {
        start: () => schedulerCalls.push('start'),
        stop: () => schedulerCalls.push('stop'),
        nextRunAtMs: () => null,
        // Like the core Scheduler: it records a failure, it never rejects.
        runNow: () => run().catch(() => undefined),
      };
    },
  });
  return { app, persisted, notices, schedulerCalls, scheduledRun: () => run() };
}

describe('Cancel', () => {
  it('closes the core (aborting the pull), reopens it, and says what was cancelled', async () => {
    const first = hangingUpdater();
    const second = hangingUpdater();
    const { app } = setup(first, { reopen: () => Promise.resolve(second) });
    const running = app.checkNow();
    await Promise.resolve();
    expect(app.getStatus()).toMatchObject({ phase: 'downloading' });
    await expect(app.cancel()).resolves.toEqual({
      ok: true,
      words: 'The download of 2.0.0 was stopped.',
    });
    await running;
    expect(first.closed).toBe(1);
    // A cancel the user chose is neutral news, not an error box.
    expect(app.getStatus()).toMatchObject({
      state: 'idle',
      progress: null,
      lastError: null,
      notice: { kind: 'cancelled', words: 'The download of 2.0.0 was stopped.' },
    });
    // The reopened core is the one used from now on.
    void app.checkNow();
    await Promise.resolve();
    expect(second.runs).toBe(1);
    await app.close();
  });

  it('does not make the scheduler back off: a cancel is not a failure', async () => {
    const first = hangingUpdater();
    const { app, scheduledRun } = setup(first, { reopen: () => Promise.resolve(hangingUpdater()) });
    const run = scheduledRun();
    await Promise.resolve();
    await app.cancel();
    await expect(run).resolves.toBeUndefined();
    await app.close();
  });

  it('with nothing running, says so and touches nothing', async () => {
    const first = hangingUpdater();
    const { app } = setup(first, { reopen: () => Promise.resolve(hangingUpdater()) });
    await expect(app.cancel()).resolves.toEqual({ ok: true, words: 'No update is running.' });
    expect(first.closed).toBe(0);
  });

  it('where the core cannot be reopened (no reopen), refuses in plain words', async () => {
    const first = hangingUpdater();
    const { app } = setup(first);
    void app.checkNow();
    await Promise.resolve();
    const answer = await app.cancel();
    expect(answer).toMatchObject({ ok: false, error: { code: 'IO' } });
    expect(first.closed).toBe(0);
    await app.close();
  });
});

describe('Roll back, Verify, Open log, pause', () => {
  it('rolls back, says from and to, and skips the version it left', async () => {
    const { app, persisted } = setup(hangingUpdater(), { now: () => 5_000 });
    await app.start();
    const answer = await app.rollBack();
    expect(answer).toMatchObject({ ok: true });
    expect(answer.ok && answer.words).toBe(
      'Rolled back from 1.0.0 to 0.9.0. 1.0.0 is skipped until a newer version appears.',
    );
    expect(app.getStatus()).toMatchObject({
      state: 'rolled-back',
      skippedVersion: '1.0.0',
      lastUpdate: { kind: 'rollback', fromVersion: '1.0.0', toVersion: '0.9.0', atMs: 5_000 },
    });
    expect(persisted).toEqual([]);
  });

  it('Check now after a roll back does not install the skipped version, and says so', async () => {
    const updater = hangingUpdater({ checkTo: '1.0.0' });
    const { app } = setup(updater);
    await app.start();
    await app.rollBack();
    await app.checkNow();
    expect(updater.runs).toBe(0);
    expect(app.getStatus()).toMatchObject({ state: 'up-to-date', notice: { kind: 'skipped' } });
    expect(app.getStatus().notice?.words).toContain('Version 1.0.0 is available but skipped');
  });

  it('Check now after a roll back installs a newer version than the skipped one', async () => {
    const updater = hangingUpdater({ checkTo: '2.0.0' });
    const { app } = setup(updater, { reopen: () => Promise.resolve(hangingUpdater()) });
    await app.start();
    await app.rollBack();
    void app.checkNow();
    await new Promise((resolve) => setImmediate(resolve));
    expect(updater.runs).toBe(1);
    expect(app.getStatus()).toMatchObject({ state: 'downloading', skippedVersion: null });
    await app.cancel();
    await app.close();
  });

  it('NOTHING_TO_ROLL_BACK: a refused roll back comes back in plain words', async () => {
    const refusal = new UpdateError('NOTHING_TO_ROLL_BACK', 'no previous set');
    const { app } = setup(hangingUpdater({ rollback: refusal }));
    await expect(app.rollBack()).resolves.toEqual({
      ok: false,
      error: expect.objectContaining({
        code: 'NOTHING_TO_ROLL_BACK',
        words: 'There is no previous version to go back to.',
      }) as unknown,
    });
    expect(app.getStatus().paused).toBe(false);
  });

  it('refuses to roll back or verify while an update runs', async () => {
    const { app } = setup(hangingUpdater(), { reopen: () => Promise.resolve(hangingUpdater()) });
    void app.checkNow();
    await Promise.resolve();
    expect(await app.rollBack()).toMatchObject({ ok: false, error: { code: 'BUSY' } });
    expect(await app.verify()).toMatchObject({ ok: false, error: { code: 'BUSY' } });
    await app.cancel();
    await app.close();
  });

  it('verify: all files match', async () => {
    const { app } = setup(hangingUpdater());
    await expect(app.verify()).resolves.toEqual({
      ok: true,
      words: 'Every installed file of 1.0.0 matches its signed checksum.',
    });
  });

  it('verify: drift is listed by name and problem, with what to do', async () => {
    const drift = Array.from({ length: 7 }, (_, i) => ({
      name: `f${i}.txt`,
      problem: i === 0 ? ('missing' as const) : ('modified' as const),
    }));
    const { app } = setup(hangingUpdater({ verify: { version: '1.0.0', ok: false, drift } }));
    const answer = await app.verify();
    expect(answer).toMatchObject({
      ok: false,
      error: {
        code: 'DRIFT',
        words:
          '7 files differ from the signed 1.0.0: f0.txt (missing), f1.txt (modified), f2.txt (modified), f3.txt (modified), f4.txt (modified), and 2 more.',
        advice: 'Check for updates now: it restores them from verified copies.',
      },
    });
  });

  it('opens the log', async () => {
    const { app } = setup(hangingUpdater());
    await expect(app.openLog()).resolves.toEqual({
      ok: true,
      words: 'The log file is open in your viewer.',
    });
  });

  it('with no log file to open (the web window), says where the log is, without contradiction', async () => {
    const app = createAppController({
      updater: hangingUpdater(),
      registryLabel: 'r',
      fetchActivity: () => Promise.resolve({ state: 'offline', message: 'x' }),
      logLocation: 'printed in the terminal that runs `updater serve`',
    });
    await expect(app.openLog()).resolves.toEqual({
      ok: true,
      words:
        'This window has no log file to open: the log is printed in the terminal that runs `updater serve`.',
    });
  });

  it('remembers pause and resume in the settings', () => {
    const { app, persisted, schedulerCalls } = setup(hangingUpdater());
    app.setPaused(true);
    app.setPaused(true); // no change, nothing written
    app.setPaused(false);
    expect(persisted).toEqual([true, false]);
    expect(schedulerCalls).toEqual(['stop', 'start']);
  });
});

describe('progress', () => {
  it('carries the target version, the speed and the time left', async () => {
    const updater = hangingUpdater();
    let now = 0;
    const { app } = setup(updater, {
      now: () => now,
      reopen: () => Promise.resolve(hangingUpdater()),
    });
    void app.checkNow();
    await Promise.resolve();
    updater.emit({ type: 'progress', bytes: 0, total: 1000, artifact: 'a.bin' });
    now = 1_000;
    updater.emit({ type: 'progress', bytes: 250, total: 1000, artifact: 'a.bin' });
    expect(app.getStatus().progress).toMatchObject({
      bytes: 250,
      total: 1000,
      targetVersion: '2.0.0',
      artifact: 'a.bin',
      bytesPerSecond: 250,
      remainingMs: null, // not stable yet
    });
    for (const [t, bytes] of [
      [2_000, 500],
      [3_000, 750],
    ] as const) {
      now = t;
      updater.emit({ type: 'progress', bytes, total: 1000, artifact: 'a.bin' });
    }
    expect(app.getStatus().progress).toMatchObject({ bytesPerSecond: 250, remainingMs: 1_000 });
    await app.cancel();
    await app.close();
  });

  it('restarts the speed on a new run: nothing measured across a cancel', async () => {
    const first = hangingUpdater();
    const second = hangingUpdater();
    let now = 0;
    const { app } = setup(first, { now: () => now, reopen: () => Promise.resolve(second) });
    void app.checkNow();
    await Promise.resolve();
    first.emit({ type: 'progress', bytes: 0, total: 1000, artifact: 'a.bin' });
    now = 1_000;
    first.emit({ type: 'progress', bytes: 100, total: 1000, artifact: 'a.bin' });
    await app.cancel();
    now = 60_000;
    void app.checkNow();
    await new Promise((resolve) => setImmediate(resolve));
    second.emit({ type: 'progress', bytes: 100, total: 1000, artifact: 'a.bin' });
    now = 61_000;
    second.emit({ type: 'progress', bytes: 400, total: 1000, artifact: 'a.bin' });
    expect(app.getStatus().progress).toMatchObject({ bytesPerSecond: 300 });
    await app.cancel();
    await app.close();
  });
});
