import { describe, expect, it } from 'vitest';
import { UpdateError } from '#core/errors.js';
import type { UpdateEvent, UpdateListener } from '#core/events.js';
import type { UpdaterApi, UpdaterStatus } from '#core/updater-api.js';
import { createAppController, type CheckScheduler } from '#app/app-controller.js';
import type { AppStatus } from '#preload/ipc-contract.js';

const PLAN = {
  fromVersion: null,
  toVersion: '1.0.0',
  fetch: [{ name: 'a.bin', size: 100 }],
  reuse: [],
  remove: [],
  bytesToFetch: 100,
  bytesToReuse: 0,
  artifacts: [
    {
      name: 'a.bin',
      size: 100,
      method: 'whole' as const,
      fetchBytes: 100,
      reusedBytes: 0,
      indexBytes: 0,
    },
  ],
};

/** A scripted UpdaterApi: update() replays events, then resolves or rejects. */
function fakeUpdater(script: { events: UpdateEvent[]; fail?: Error }) {
  const listeners = new Set<UpdateListener>();
  let core: UpdaterStatus = {
    installedVersion: null,
    highestAcceptedVersion: null,
    lastCheckAtMs: null,
    lastSuccessAtMs: null,
    lastError: null,
    running: false,
    canRollBack: false,
    probation: null,
    badVersions: [],
  };
  const updater: UpdaterApi & { updates: number; closed: number } = {
    updates: 0,
    closed: 0,
    check: () => Promise.resolve(PLAN),
    async update() {
      updater.updates += 1;
      await Promise.resolve();
      for (const event of script.events) for (const l of listeners) l(event);
      if (script.fail !== undefined) {
        if (script.fail instanceof UpdateError) core = { ...core, lastError: script.fail.toJSON() };
        throw script.fail;
      }
      core = { ...core, installedVersion: '1.0.0', lastCheckAtMs: 5, lastError: null };
      return { outcome: 'applied', version: '1.0.0', plan: PLAN, bytesDownloaded: 100 };
    },
    status: () => Promise.resolve(core),
    confirm: () => Promise.resolve({ version: null, confirmed: false }),
    rollback: () => Promise.resolve({ version: null }),
    verify: () => Promise.resolve({ version: null, ok: true, drift: [] }),
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      updater.closed += 1;
      return Promise.resolve();
    },
  };
  return updater;
}

const APPLY: UpdateEvent[] = [
  { type: 'checking', atMs: 1 },
  { type: 'update-available', plan: PLAN, atMs: 2 },
  { type: 'progress', bytes: 40, total: 100, artifact: 'a.bin' },
  { type: 'progress', bytes: 100, total: 100, artifact: 'a.bin' },
  { type: 'applied', version: '1.0.0', previousVersion: null, atMs: 3 },
];

function controller(updater: UpdaterApi, extra: { scheduler?: CheckScheduler } = {}) {
  const notices: string[] = [];
  const seen: AppStatus[] = [];
  const app = createAppController({
    updater,
    registryLabel: 'Demo registry',
    fetchActivity: () => Promise.resolve({ state: 'offline', message: 'x' }),
    notify: (n) => notices.push(n.title),
    ...(extra.scheduler === undefined ? {} : { createScheduler: () => extra.scheduler! }),
  });
  app.onStatus((s) => seen.push(s));
  return { app, notices, seen };
}

describe('app controller', () => {
  it('follows a run: checking, downloading with progress, applying, then the installed version', async () => {
    const { app, seen, notices } = controller(fakeUpdater({ events: APPLY }));
    await app.checkNow();
    // Events, then the core's persisted status, then the re-planned schedule.
    expect(seen.map((s) => s.phase)).toEqual([
      'checking',
      'downloading',
      'downloading',
      'applying',
      'idle',
      'idle',
      'idle',
    ]);
    expect(seen[2]?.progress).toMatchObject({ bytes: 40, total: 100, targetVersion: '1.0.0' });
    expect(app.getStatus()).toMatchObject({
      installedVersion: '1.0.0',
      lastError: null,
      progress: null,
    });
    expect(notices).toEqual(['Update installed']);
  });

  it('a second Check now joins the run in flight', async () => {
    const updater = fakeUpdater({ events: APPLY });
    const { app } = controller(updater);
    await Promise.all([app.checkNow(), app.checkNow()]);
    expect(updater.updates).toBe(1);
  });

  it('records a refusal with its code and never rejects', async () => {
    const fail = new UpdateError('SIGNATURE_INVALID', 'The manifest signature does not verify.');
    const events: UpdateEvent[] = [
      { type: 'checking', atMs: 1 },
      { type: 'error', code: 'SIGNATURE_INVALID', message: fail.message, atMs: 2 },
    ];
    const { app, notices } = controller(fakeUpdater({ events, fail }));
    await expect(app.checkNow()).resolves.toBeUndefined();
    expect(app.getStatus().lastError).toMatchObject({
      code: 'SIGNATURE_INVALID',
      message: 'The manifest signature does not verify.',
      words: 'The update was refused: its signature does not match the pinned key.',
      kind: 'security',
    });
    expect(app.getStatus().lastError?.advice).toMatch(/^Nothing was installed/);
    expect(notices).toEqual(['Update refused for your safety']);
  });

  it('turns an unexpected failure into a plain IO error', async () => {
    const { app } = controller(fakeUpdater({ events: [], fail: new Error('boom') }));
    await app.checkNow();
    expect(app.getStatus().lastError).toMatchObject({
      code: 'IO',
      message: 'The update stopped unexpectedly; see the log file.',
      words: 'The update stopped unexpectedly; see the log file.',
      kind: 'local',
    });
  });

  it('starts and stops the schedule with pause, and shows the next check time', async () => {
    const calls: string[] = [];
    const scheduler: CheckScheduler = {
      start: () => calls.push('start'),
      stop: () => calls.push('stop'),
      nextRunAtMs: () => 42_000,
      runNow: () => Promise.resolve(),
    };
    const { app } = controller(fakeUpdater({ events: [] }), { scheduler });
    await app.start();
    expect(app.getStatus().nextCheckAtMs).toBe(42_000);
    app.setPaused(true);
    expect(app.getStatus()).toMatchObject({ paused: true, nextCheckAtMs: null });
    app.setPaused(false);
    expect(calls).toEqual(['start', 'stop', 'start']);
    await app.close();
    expect(calls.at(-1)).toBe('stop');
  });

  it('Check now goes through the scheduler, and the status then shows its new plan', async () => {
    const updater = fakeUpdater({ events: APPLY });
    let next = 1_000;
    const scheduler: CheckScheduler = {
      start: () => undefined,
      stop: () => undefined,
      nextRunAtMs: () => next,
      // Like the core Scheduler: run, then plan the next run from the outcome.
      runNow: async () => {
        await runFromScheduler();
        next = 3_600_000;
      },
    };
    let runFromScheduler: () => Promise<void> = () => Promise.resolve();
    const app = createAppController({
      updater,
      registryLabel: 'Demo registry',
      fetchActivity: () => Promise.resolve({ state: 'offline', message: 'x' }),
      createScheduler: (run) => {
        runFromScheduler = run;
        return scheduler;
      },
    });
    const pushed: (number | null)[] = [];
    app.onStatus((s) => pushed.push(s.nextCheckAtMs));
    await app.checkNow();
    expect(updater.updates).toBe(1);
    expect(app.getStatus()).toMatchObject({ installedVersion: '1.0.0', nextCheckAtMs: 3_600_000 });
    expect(pushed.at(-1)).toBe(3_600_000);
  });

  it('the scheduled run rejects on failure so the scheduler can back off', async () => {
    const fail = new UpdateError('RATE_LIMITED', 'slow down', { retryAfterMs: 60_000 });
    let run: () => Promise<void> = () => Promise.resolve();
    createAppController({
      updater: fakeUpdater({ events: [], fail }),
      registryLabel: 'x',
      fetchActivity: () => Promise.resolve({ state: 'offline', message: 'x' }),
      createScheduler: (r) => {
        run = r;
        return {
          start: () => undefined,
          stop: () => undefined,
          nextRunAtMs: () => null,
          runNow: r,
        };
      },
    });
    await expect(run()).rejects.toBe(fail);
  });

  it('close() closes the core once and ignores later checks', async () => {
    const updater = fakeUpdater({ events: APPLY });
    const { app } = controller(updater);
    await app.close();
    await app.close();
    await app.checkNow();
    expect(updater.closed).toBe(1);
    expect(updater.updates).toBe(0);
  });
});
