import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PlanSummary } from '#core/events.js';
import { describeError } from '#app/status/refusal-words.js';
import { reduceStatus, type StatusEvent } from '#app/status/status-machine.js';
import { initialStatus } from '#app/status/status-model.js';
import type { AppStatus } from '#preload/ipc-contract.js';

function plan(
  toVersion: string,
  fromVersion: string | null = '1.0.0',
  chunks = false,
): PlanSummary {
  return {
    fromVersion,
    toVersion,
    fetch: [{ name: 'app.bin', size: 1_000 }],
    reuse: [],
    remove: [],
    bytesToFetch: 1_000,
    bytesToReuse: chunks ? 9_000 : 0,
    artifacts: [
      {
        name: 'app.bin',
        size: chunks ? 10_000 : 1_000,
        method: chunks ? 'chunks' : 'whole',
        fetchBytes: 1_000,
        reusedBytes: chunks ? 9_000 : 0,
        indexBytes: 0,
      },
    ],
  };
}

const at = (atMs = 1): { atMs: number } => ({ atMs });
const run = (events: readonly StatusEvent[], from: AppStatus = start()): AppStatus =>
  events.reduce(reduceStatus, from);
function start(): AppStatus {
  return { ...initialStatus('Demo registry'), installedVersion: '1.0.0', canRollBack: true };
}
const checking: StatusEvent = { type: 'checking', ...at() };
const available = (v = '2.0.0'): StatusEvent => ({
  type: 'update-available',
  plan: plan(v),
  ...at(),
});
const progress = (bytes: number, total = 1_000): StatusEvent => ({
  type: 'progress',
  bytes,
  total,
  artifact: 'app.bin',
});
const networkError: StatusEvent = { type: 'error', code: 'NETWORK', message: 'down', ...at() };

describe('status machine: one transition each', () => {
  it('checking clears an earlier error and result line', () => {
    const failed = run([checking, available(), progress(300), networkError]);
    expect(failed.state).toBe('failed');
    const next = reduceStatus(failed, checking);
    expect(next).toMatchObject({ state: 'checking', lastError: null, notice: null, kept: null });
    expect(next.headline).toBe('Checking for updates…');
  });

  it('up-to-date says so in the headline and keeps no result line', () => {
    const next = run([checking, { type: 'up-to-date', version: '1.0.0', ...at() }]);
    expect(next).toMatchObject({ state: 'up-to-date', notice: null });
    expect(next.headline).toBe('You’re up to date (1.0.0).');
  });

  it('update-available starts a download with the version and no error', () => {
    const next = run([checking, available('2.0.0')]);
    expect(next).toMatchObject({ state: 'downloading', phase: 'downloading', lastError: null });
    expect(next.progress).toMatchObject({ bytes: 0, total: 1_000, targetVersion: '2.0.0' });
    expect(next.headline).toBe('Downloading version 2.0.0…');
  });

  it('a chunk delta records what it saves', () => {
    const next = run([
      checking,
      { type: 'update-available', plan: plan('2.0.0', '1.0.0', true), ...at() },
    ]);
    expect(next.progress).toMatchObject({ changesOnly: true, savedBytes: 9_000 });
  });

  it('progress moves bytes, and the last chunk moves to installing', () => {
    const mid = run([checking, available(), progress(400)]);
    expect(mid).toMatchObject({
      state: 'downloading',
      progress: { bytes: 400, artifact: 'app.bin' },
    });
    expect(reduceStatus(mid, progress(1_000)).state).toBe('installing');
  });

  it('a progress event without an announced download is ignored', () => {
    const idle = start();
    expect(reduceStatus(idle, progress(10))).toBe(idle);
  });

  it('applied says an update as an update and a first install as an install', () => {
    const updated = run([
      checking,
      available(),
      { type: 'applied', version: '2.0.0', previousVersion: '1.0.0', ...at() },
    ]);
    expect(updated).toMatchObject({
      state: 'up-to-date',
      installedVersion: '2.0.0',
      progress: null,
    });
    expect(updated.notice).toEqual({ kind: 'updated', words: 'Updated from 1.0.0 to 2.0.0.' });
    const first = run(
      [
        checking,
        available('1.0.0'),
        { type: 'applied', version: '1.0.0', previousVersion: null, ...at() },
      ],
      initialStatus('x'),
    );
    expect(first.notice).toEqual({ kind: 'installed', words: 'Installed version 1.0.0.' });
    expect(first.lastUpdate?.kind).toBe('install');
  });

  it('probation names the version, healthy restores the result line', () => {
    const applied: StatusEvent = {
      type: 'applied',
      version: '2.0.0',
      previousVersion: '1.0.0',
      ...at(),
    };
    const onProbation = run([
      checking,
      available(),
      applied,
      { type: 'probation', version: '2.0.0', mode: 'check', deadlineAtMs: null, ...at() },
    ]);
    expect(onProbation).toMatchObject({ state: 'probation', notice: null, targetVersion: '2.0.0' });
    expect(onProbation.headline).toBe('Checking that version 2.0.0 works…');
    const healthy = reduceStatus(onProbation, { type: 'healthy', version: '2.0.0', ...at() });
    expect(healthy).toMatchObject({ state: 'up-to-date', notice: { kind: 'updated' } });
  });

  it('reverted is said as a rollback with its reason, not as an error box', () => {
    const next = run([
      checking,
      { type: 'reverted', version: '2.0.0', restoredVersion: '1.0.0', reason: 'exit 1', ...at() },
    ]);
    expect(next).toMatchObject({
      state: 'rolled-back',
      lastError: null,
      installedVersion: '1.0.0',
    });
    expect(next.notice?.words).toBe('Version 2.0.0 failed its health check; 1.0.0 is back.');
  });

  it('version-skipped is up to date with the reason in the result line', () => {
    const next = run([
      checking,
      { type: 'version-skipped', version: '2.0.0', reason: 'bad', ...at() },
    ]);
    expect(next).toMatchObject({ state: 'up-to-date', notice: { kind: 'skipped' } });
  });

  it('an error during a download fails with the version and the bytes kept', () => {
    const next = run([checking, available('3.0.0'), progress(600), networkError]);
    expect(next).toMatchObject({ state: 'failed', progress: null, targetVersion: '3.0.0' });
    expect(next.kept).toEqual({ targetVersion: '3.0.0', keptBytes: 600, total: 1_000 });
    expect(next.lastError?.kind).toBe('network');
    expect(next.headline).toBe('The update to 3.0.0 stopped.');
  });

  it('an abort is no failure; cancelled is neutral news with the bytes kept', () => {
    const aborted = run([
      checking,
      available('3.0.0'),
      progress(600),
      { type: 'error', code: 'ABORTED', message: 'x', ...at() },
    ]);
    expect(aborted).toMatchObject({ state: 'idle', lastError: null, progress: null });
    const next = reduceStatus(aborted, {
      type: 'cancelled',
      targetVersion: '3.0.0',
      keptBytes: 600_000,
    });
    expect(next).toMatchObject({ state: 'idle', lastError: null, notice: { kind: 'cancelled' } });
    expect(next.notice?.words).toBe(
      'The download of 3.0.0 was stopped. 600.0 kB are kept; the next check resumes from there.',
    );
  });

  it('rolled-back names both versions and records the version left as skipped', () => {
    const next = reduceStatus(
      { ...start(), installedVersion: '3.0.0' },
      { type: 'rolled-back', from: '3.0.0', to: '2.0.0', atMs: 5 },
    );
    expect(next).toMatchObject({
      state: 'rolled-back',
      installedVersion: '2.0.0',
      skippedVersion: '3.0.0',
    });
    expect(next.headline).toBe('Rolled back to 2.0.0.');
    expect(next.notice?.words).toBe(
      'Rolled back from 3.0.0 to 2.0.0. 3.0.0 is skipped until a newer version appears.',
    );
    expect(next.lastUpdate).toMatchObject({
      kind: 'rollback',
      fromVersion: '3.0.0',
      toVersion: '2.0.0',
    });
  });

  it('the skip ends only when a different version is offered', () => {
    const rolled = reduceStatus(start(), {
      type: 'rolled-back',
      from: '3.0.0',
      to: '1.0.0',
      atMs: 5,
    });
    expect(run([checking, available('3.0.0')], rolled).skippedVersion).toBe('3.0.0');
    expect(run([checking, available('3.1.0')], rolled).skippedVersion).toBeNull();
  });

  it('skipped-by-user says the skipped version is not installed', () => {
    const next = run([checking, { type: 'skipped-by-user', version: '3.0.0' }]);
    expect(next.state).toBe('up-to-date');
    expect(next.notice?.words).toContain('Version 3.0.0 is available but skipped');
  });

  it('offered holds the version, its size and notes, and nothing else', () => {
    const next = run([checking, { type: 'offered', plan: plan('2.0.0'), notes: 'Fixes.' }]);
    expect(next).toMatchObject({ state: 'available', progress: null, targetVersion: '2.0.0' });
    expect(next.offer).toEqual({ version: '2.0.0', downloadBytes: 1_000, notes: 'Fixes.' });
    expect(next.headline).toBe('Version 2.0.0 is available.');
  });

  it('a failure from the app itself fails with its words', () => {
    const next = reduceStatus(start(), { type: 'failed', error: describeError('IO', 'x') });
    expect(next).toMatchObject({ state: 'failed', lastError: { code: 'IO' } });
  });

  it('pause at rest shows paused; resume returns to idle', () => {
    const pausedStatus = reduceStatus(start(), { type: 'paused', paused: true });
    expect(pausedStatus).toMatchObject({
      state: 'paused',
      paused: true,
      headline: 'Automatic updates are paused.',
    });
    expect(reduceStatus(pausedStatus, { type: 'paused', paused: false })).toMatchObject({
      state: 'idle',
      paused: false,
    });
  });

  it('pause during a download or a failure changes only the flag', () => {
    const downloading = run([checking, available()]);
    expect(reduceStatus(downloading, { type: 'paused', paused: true })).toEqual({
      ...downloading,
      paused: true,
    });
    const failed = run([checking, networkError]);
    expect(reduceStatus(failed, { type: 'paused', paused: true })).toEqual({
      ...failed,
      paused: true,
    });
  });

  it('verifying runs and returns to rest; a stray end is ignored', () => {
    const verifying = reduceStatus(start(), { type: 'verifying', running: true });
    expect(verifying).toMatchObject({ state: 'verifying', phase: 'applying' });
    expect(reduceStatus(verifying, { type: 'verifying', running: false }).state).toBe('idle');
    const idle = start();
    expect(reduceStatus(idle, { type: 'verifying', running: false })).toBe(idle);
  });
});

const versionArb = fc.constantFrom('1.0.0', '2.0.0', '3.0.0');
const eventArb: fc.Arbitrary<StatusEvent> = fc.oneof(
  fc.constant(checking),
  versionArb.map((v) => ({ type: 'up-to-date', version: v, ...at() }) as const),
  versionArb.map((v) => ({ type: 'update-available', plan: plan(v), ...at() }) as const),
  fc.nat(1_200).map((bytes) => progress(bytes)),
  versionArb.map(
    (v) => ({ type: 'applied', version: v, previousVersion: '1.0.0', ...at() }) as const,
  ),
  versionArb.map(
    (v) => ({ type: 'probation', version: v, mode: 'check', deadlineAtMs: null, ...at() }) as const,
  ),
  versionArb.map((v) => ({ type: 'healthy', version: v, ...at() }) as const),
  versionArb.map(
    (v) =>
      ({ type: 'reverted', version: v, restoredVersion: '1.0.0', reason: 'r', ...at() }) as const,
  ),
  versionArb.map((v) => ({ type: 'version-skipped', version: v, reason: 'r', ...at() }) as const),
  fc
    .constantFrom('NETWORK', 'ABORTED', 'SIGNATURE_INVALID')
    .map((code) => ({ type: 'error', code, message: 'm', ...at() }) as const),
  versionArb.map((v) => ({ type: 'offered', plan: plan(v), notes: null }) as const),
  fc
    .nat(5_000)
    .map((kept) => ({ type: 'cancelled', targetVersion: '2.0.0', keptBytes: kept }) as const),
  versionArb.map((v) => ({ type: 'rolled-back', from: v, to: '1.0.0', atMs: 1 }) as const),
  fc.boolean().map((p) => ({ type: 'paused', paused: p }) as const),
  fc.boolean().map((r) => ({ type: 'verifying', running: r }) as const),
  versionArb.map((v) => ({ type: 'skipped-by-user', version: v }) as const),
);

/** Events that write the result line; any other transition must leave none. */
const NOTICE_WRITERS = new Set([
  'applied',
  'healthy',
  'reverted',
  'version-skipped',
  'cancelled',
  'rolled-back',
  'skipped-by-user',
  'up-to-date',
  'paused',
]);

describe('status machine: properties over any event sequence', () => {
  it('never shows an error box beside a running download', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 40 }), (events) => {
        let status = start();
        for (const event of events) {
          status = reduceStatus(status, event);
          const running = status.state === 'downloading' || status.state === 'installing';
          if (running) expect(status.lastError).toBeNull();
          expect(status.lastError !== null).toBe(status.state === 'failed');
          expect(status.progress !== null).toBe(running);
        }
      }),
    );
  });

  it('never leaves a result line beside a newer state', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 40 }), (events) => {
        let status = start();
        for (const event of events) {
          const before = status;
          status = reduceStatus(status, event);
          if (status.notice === null || status === before) continue;
          // A result line after a state change was written by this very event.
          if (status.state !== before.state) expect(NOTICE_WRITERS.has(event.type)).toBe(true);
          expect(['idle', 'up-to-date', 'rolled-back', 'paused']).toContain(status.state);
        }
      }),
    );
  });

  it('keeps offer, kept bytes and the headline true to the state', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 40 }), (events) => {
        const status = run(events);
        expect(status.offer !== null).toBe(status.state === 'available');
        if (status.kept !== null) expect(status.state).toBe('failed');
        expect(status.headline.length).toBeGreaterThan(0);
      }),
    );
  });
});
