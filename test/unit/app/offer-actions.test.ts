import { describe, expect, it } from 'vitest';
import type { PlanSummary, UpdateEvent, UpdateListener } from '#core/events.js';
import type { UpdaterApi, UpdaterStatus } from '#core/updater-api.js';
import { createAppController } from '#app/app-controller.js';
import type { UpdatePolicy } from '#preload/ipc-contract.js';

const plan = (toVersion: string): PlanSummary => ({
  fromVersion: '1.0.0',
  toVersion,
  fetch: [{ name: 'a.bin', size: 2_500_000 }],
  reuse: [],
  remove: [],
  bytesToFetch: 2_500_000,
  bytesToReuse: 0,
  artifacts: [],
  notes: `## ${toVersion}\n\n- faster`,
});

/** check() answers `offered.version`; update() installs it and resolves. */
function fakeUpdater(offered: { version: string }) {
  const listeners = new Set<UpdateListener>();
  const core: { -readonly [K in keyof UpdaterStatus]: UpdaterStatus[K] } = {
    installedVersion: '1.0.0',
    highestAcceptedVersion: '1.0.0',
    lastCheckAtMs: null,
    lastSuccessAtMs: null,
    lastError: null,
    running: false,
    canRollBack: false,
    probation: null,
    badVersions: [],
  };
  const emit = (event: UpdateEvent): void => {
    for (const l of listeners) l(event);
  };
  const fake = {
    checks: 0,
    installs: [] as string[],
    check() {
      fake.checks += 1;
      return Promise.resolve(plan(offered.version));
    },
    update() {
      const version = offered.version;
      fake.installs.push(version);
      emit({ type: 'update-available', plan: plan(version), atMs: 1 });
      emit({ type: 'applied', version, previousVersion: core.installedVersion, atMs: 2 });
      core.installedVersion = version;
      return Promise.resolve();
    },
    status: () => Promise.resolve({ ...core }),
    confirm: () => Promise.resolve({ version: null, confirmed: false }),
    rollback: () => Promise.resolve({ version: '0.9.0' }),
    verify: () => Promise.resolve({ version: '1.0.0', ok: true, drift: [] }),
    on(listener: UpdateListener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () => Promise.resolve(),
  };
  return fake as typeof fake & UpdaterApi;
}

function setup(policy: UpdatePolicy, initialSkip: string | null = null) {
  const offered = { version: '2.0.0' };
  const updater = fakeUpdater(offered);
  const kept: (string | null)[] = [];
  const notices: string[] = [];
  const app = createAppController({
    updater,
    registryLabel: 'r',
    fetchActivity: () => Promise.resolve({ state: 'offline', message: 'x' }),
    notify: (n) => notices.push(`${n.title} / ${n.body}`),
    policy: () => policy,
    skipped: { initial: initialSkip, persist: (v) => kept.push(v) },
  });
  return { app, updater, offered, kept, notices };
}

describe('update policy "ask": offer, then Install now / Skip this version', () => {
  it('a check that finds a new version stops after planning and offers it with size and notes', async () => {
    const { app, updater, notices } = setup('ask');
    await app.start();
    await app.checkNow();
    expect(updater.installs).toEqual([]);
    expect(app.getStatus()).toMatchObject({
      state: 'available',
      offer: { version: '2.0.0', downloadBytes: 2_500_000, notes: '## 2.0.0\n\n- faster' },
    });
    expect(notices).toEqual([
      'Verified Updater: 2.0.0 is available / Verified, 2.5 MB to download. Open the window to install it.',
    ]);
  });

  it('Install now installs the offered version', async () => {
    const { app, updater } = setup('ask');
    await app.start();
    await app.checkNow();
    await expect(app.installNow()).resolves.toEqual({ ok: true, words: 'Installing 2.0.0.' });
    expect(updater.installs).toEqual(['2.0.0']);
    expect(app.getStatus()).toMatchObject({ installedVersion: '2.0.0', offer: null });
  });

  it('Install now with nothing offered installs nothing', async () => {
    const { app, updater } = setup('ask');
    await app.start();
    await expect(app.installNow()).resolves.toEqual({ ok: true, words: 'No update is offered.' });
    expect(updater.installs).toEqual([]);
  });

  it('Skip this version: kept for the next session, Check now says so, a newer one ends it', async () => {
    const { app, updater, offered, kept } = setup('ask');
    await app.start();
    await app.checkNow();
    expect(app.skipVersion('2.0.0')).toMatchObject({ ok: true });
    expect(kept).toEqual(['2.0.0']);
    expect(app.getStatus()).toMatchObject({ state: 'up-to-date', skippedVersion: '2.0.0' });
    await app.checkNow();
    expect(updater.installs).toEqual([]);
    expect(app.getStatus().notice?.words).toContain('Version 2.0.0 is available but skipped');
    offered.version = '2.1.0';
    await app.checkNow();
    expect(app.getStatus()).toMatchObject({ state: 'available', offer: { version: '2.1.0' } });
    await app.installNow();
    expect(updater.installs).toEqual(['2.1.0']);
    expect(kept).toEqual(['2.0.0', null]);
  });

  it('a stale window cannot skip a version that is not on offer', async () => {
    const { app, kept } = setup('ask');
    await app.start();
    await app.checkNow();
    expect(app.skipVersion('1.9.0')).toEqual({
      ok: true,
      words: 'That version is no longer offered.',
    });
    expect(kept).toEqual([]);
    expect(app.getStatus()).toMatchObject({ state: 'available', skippedVersion: null });
  });

  it('a skip kept from an earlier session is respected by the first check', async () => {
    const { app, updater } = setup('auto', '2.0.0');
    await app.start();
    await app.checkNow();
    expect(updater.installs).toEqual([]);
    expect(app.getStatus()).toMatchObject({ skippedVersion: '2.0.0', state: 'up-to-date' });
  });
});

describe('update policies "notify" and "auto"', () => {
  it('"notify" tells and offers, and installs only on Install now', async () => {
    const { app, updater, notices } = setup('notify');
    await app.start();
    await app.checkNow();
    expect(updater.installs).toEqual([]);
    expect(notices).toHaveLength(1);
    expect(app.getStatus()).toMatchObject({ state: 'available' });
    await app.installNow();
    expect(updater.installs).toEqual(['2.0.0']);
  });

  it('"auto" installs at once without a probe', async () => {
    const { app, updater } = setup('auto');
    await app.start();
    await app.checkNow();
    expect(updater.checks).toBe(0);
    expect(updater.installs).toEqual(['2.0.0']);
  });
});
