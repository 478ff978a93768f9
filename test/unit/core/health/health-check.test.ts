import { describe, expect, it } from 'vitest';
import type { UpdateEvent } from '#core/events.js';
import { PROBE_GRACE_MS, type HealthConfig } from '#core/health/health-check.js';
import { EMPTY_HEALTH, MAX_BAD_VERSIONS, parseHealth, withBadVersion } from '#core/health-state.js';
import type { HealthProbe } from '#core/ports.js';
import { encodeState, EMPTY_STATE, keepFloor, parseState } from '#core/state.js';
import { createUpdateLoop } from '#core/schedule/update-loop.js';
import {
  envelopeBytes,
  FakeTime,
  manifestOf,
  MemoryStore,
  ScriptedFetcher,
  sha256Hex,
  testKey,
  text,
  type ReleaseFile,
} from '#test/fakes.js';
import { loopDeps } from '#test/update-loop-kit.js';

const key = testKey();
const V1: ReleaseFile[] = [{ name: 'app', content: text('one') }];
const V2: ReleaseFile[] = [{ name: 'app', content: text('two!') }];
const V3: ReleaseFile[] = [{ name: 'app', content: text('three') }];

function setup(config?: HealthConfig, store = new MemoryStore(), time = new FakeTime()) {
  const blobs = new Map<string, Uint8Array>();
  let envelope: Uint8Array = new Uint8Array();
  const fetcher = new ScriptedFetcher((req) => {
    if (req.url.endsWith('/api/updates/manifest')) return { chunks: [envelope] };
    const blob = blobs.get(req.url.split('/').pop() ?? '');
    return blob === undefined ? { status: 404 } : { chunks: [blob] };
  });
  const events: UpdateEvent[] = [];
  const updater = createUpdateLoop({
    ...loopDeps(fetcher, store, key.hex),
    clock: time,
    timers: time,
    health: config,
  });
  updater.on((e) => events.push(e));
  const publish = (version: string, files: ReleaseFile[]): void => {
    for (const f of files) blobs.set(sha256Hex(f.content), f.content);
    envelope = envelopeBytes(manifestOf(version, files), key);
  };
  return { updater, store, time, events, publish };
}

const app = (store: MemoryStore): string => new TextDecoder().decode(store.current.get('app'));
const probe = (check: HealthProbe['check']): HealthProbe => ({ check });
const flush = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
};

describe('health check (core)', () => {
  it('times out on the injected clock, aborts the probe, and reverts', async () => {
    let aborted = false;
    let started = (): void => undefined;
    const running = new Promise<void>((r) => (started = r));
    const hanging = probe((_target, signal) => {
      started();
      signal.addEventListener('abort', () => (aborted = true));
      return new Promise(() => undefined); // ignores the abort: the grace period ends it
    });
    const store = new MemoryStore();
    const first = setup(undefined, store);
    first.publish('1.0.0', V1);
    await first.updater.update();
    const { updater, time, publish } = setup(
      { mode: 'check', probe: hanging, timeoutMs: 2_000 },
      store,
    );
    publish('2.0.0', V2);
    const run = updater.update();
    const settled = run.then(
      () => 'resolved',
      (e: { code: string; message: string }) => `${e.code} ${e.message}`,
    );
    await running;
    expect(app(store)).toBe('two!');
    time.advance(2_000);
    await flush();
    expect(aborted).toBe(true);
    time.advance(PROBE_GRACE_MS);
    expect(await settled).toBe(
      'HEALTH_CHECK_FAILED 2.0.0 failed its health check (timed out after 2 s); 1.0.0 restored',
    );
    expect(app(store)).toBe('one');
    expect(store.audit.at(-1)).toMatchObject({ version: '2.0.0', event: 'marked-bad' });
  });

  it('turns a probe that throws into a failed verdict with its message', async () => {
    const store = new MemoryStore();
    const first = setup(undefined, store);
    first.publish('1.0.0', V1);
    await first.updater.update();
    const throwing = probe(() => Promise.reject(new Error('boom')));
    const { updater, publish } = setup({ mode: 'check', probe: throwing, timeoutMs: 1_000 }, store);
    publish('2.0.0', V2);
    await expect(updater.update()).rejects.toMatchObject({ code: 'HEALTH_CHECK_FAILED' });
    expect((await updater.status()).badVersions).toMatchObject([
      { version: '2.0.0', reason: 'the check threw: boom' },
    ]);
  });

  it('a first install that fails has nothing to restore: recorded bad, left installed', async () => {
    const failing = probe(() => Promise.resolve({ ok: false, reason: 'no' }));
    const { updater, store, publish, events } = setup({
      mode: 'check',
      probe: failing,
      timeoutMs: 1_000,
    });
    publish('1.0.0', V1);
    await expect(updater.update()).rejects.toThrow('there was no previous set to restore');
    expect(app(store)).toBe('one');
    expect(events.find((e) => e.type === 'reverted')).toMatchObject({ restoredVersion: null });
    expect((await updater.update()).outcome).toBe('up-to-date');
    // A newer release still installs (and its own check decides).
    publish('2.0.0', V2);
    await expect(updater.update()).rejects.toThrow('1.0.0 restored');
  });

  it('rollback() during a probation ends it (the set rolled away from is not judged)', async () => {
    const store = new MemoryStore();
    const first = setup(undefined, store);
    first.publish('1.0.0', V1);
    await first.updater.update();
    const { updater, publish } = setup({ mode: 'confirm', timeoutMs: 60_000 }, store);
    publish('2.0.0', V2);
    expect((await updater.update()).probation).toBeDefined();
    expect(await updater.rollback()).toEqual({ version: '1.0.0' });
    expect((await updater.status()).probation).toBeNull();
    expect(await updater.confirm()).toEqual({ version: '1.0.0', confirmed: false });
  });

  it('confirm() after a failed verdict was recorded finishes the revert instead', async () => {
    const store = new MemoryStore();
    const first = setup(undefined, store);
    first.publish('1.0.0', V1);
    await first.updater.update();
    const { updater, publish } = setup({ mode: 'confirm', timeoutMs: 60_000 }, store);
    publish('2.0.0', V2);
    await updater.update();
    const p = store.state.health.probation;
    expect(p).not.toBeNull();
    store.state = {
      ...store.state,
      health: {
        ...store.state.health,
        probation: { ...(p as NonNullable<typeof p>), failed: 'crashed' },
      },
    };
    await expect(updater.confirm()).rejects.toMatchObject({ code: 'HEALTH_CHECK_FAILED' });
    expect(app(store)).toBe('one');
  });

  it('a passing check after a newer release: the previous set is the one restored before', async () => {
    let verdict = false;
    const flip = probe(() =>
      Promise.resolve(verdict ? { ok: true } : { ok: false, reason: 'bad' }),
    );
    const store = new MemoryStore();
    const first = setup(undefined, store);
    first.publish('1.0.0', V1);
    await first.updater.update();
    const { updater, publish, events } = setup(
      { mode: 'check', probe: flip, timeoutMs: 1_000 },
      store,
    );
    publish('2.0.0', V2);
    await expect(updater.update()).rejects.toMatchObject({ code: 'HEALTH_CHECK_FAILED' });
    verdict = true;
    publish('3.0.0', V3);
    expect((await updater.update()).outcome).toBe('applied');
    expect(app(store)).toBe('three');
    expect(events.filter((e) => e.type === 'healthy')).toMatchObject([{ version: '3.0.0' }]);
    expect(store.state.previous?.version).toBe('1.0.0');
  });
});

describe('health state', () => {
  it('reads a state file written before the health block as empty health', () => {
    const old = JSON.parse(new TextDecoder().decode(encodeState(EMPTY_STATE))) as Record<
      string,
      unknown
    >;
    delete old['health'];
    expect(parseState(text(JSON.stringify(old))).health).toEqual(EMPTY_HEALTH);
  });

  it('refuses a damaged health block (STATE_CORRUPT)', () => {
    for (const bad of [
      'x',
      { badVersions: [] },
      { badVersions: { 'not-semver': { setId: 'a'.repeat(64), reason: 'r', atMs: 1 } } },
      {
        badVersions: {},
        probation: {
          version: '1.0.0',
          setId: 'a'.repeat(64),
          mode: 'maybe',
          startedAtMs: 1,
          deadlineAtMs: null,
        },
      },
    ]) {
      expect(() => parseHealth(bad)).toThrow(expect.objectContaining({ code: 'STATE_CORRUPT' }));
    }
  });

  it('bounds the bad versions (the lowest go first) and keeps them through a journal replay', () => {
    let bad = {};
    for (let i = 0; i < MAX_BAD_VERSIONS + 5; i++) {
      bad = withBadVersion(bad, `1.0.${i}`, { setId: 'a'.repeat(64), reason: 'r', atMs: i });
    }
    expect(Object.keys(bad)).toHaveLength(MAX_BAD_VERSIONS);
    expect(Object.keys(bad)).not.toContain('1.0.0');
    const disk = {
      ...EMPTY_STATE,
      health: {
        probation: null,
        badVersions: { '2.0.0': { setId: 'b'.repeat(64), reason: 'x', atMs: 1 } },
      },
    };
    expect(Object.keys(keepFloor(EMPTY_STATE, disk).health.badVersions)).toEqual(['2.0.0']);
  });
});
