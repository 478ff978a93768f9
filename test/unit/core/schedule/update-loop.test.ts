import { describe, expect, it } from 'vitest';
import type { UpdateEvent } from '#core/events.js';
import { parseEndpoint } from '#core/transfer/endpoint.js';
import { resolveLimits, type Limits } from '#core/limits.js';
import { silentLogger, type PartialBlob, type SetToStage } from '#core/ports.js';
import { createUpdateLoop } from '#core/schedule/update-loop.js';
import { pinKeys } from '#core/trust/verify.js';
import {
  envelopeBytes,
  FakeTime,
  immediateTimers,
  manifestOf,
  MemoryStore,
  ScriptedFetcher,
  sha256Hex,
  testKey,
  text,
  type ReleaseFile,
  type ScriptedResponse,
  type SeenRequest,
} from '#test/fakes.js';
import { loopDeps } from '#test/update-loop-kit.js';

const key = testKey();
const V1: ReleaseFile[] = [
  { name: 'app.bin', content: text('app version one') },
  { name: 'lib/util.js', content: text('export {}') },
];
const V2: ReleaseFile[] = [
  { name: 'app.bin', content: text('app version two!') },
  { name: 'lib/util.js', content: text('export {}') },
];

/** A small honest registry: publish() swaps the served manifest. */
function registry() {
  const blobs = new Map<string, Uint8Array>();
  let envelope: Uint8Array = new Uint8Array();
  const faults: { artifact?: (req: SeenRequest) => ScriptedResponse | undefined } = {};
  const fetcher = new ScriptedFetcher((req) => {
    if (req.url.endsWith('/api/updates/manifest')) {
      if (req.headers['authorization'] !== 'Bearer mk') {
        return { status: 401, chunks: [text('{"ok":false,"code":"INVALID_MACHINE_KEY"}')] };
      }
      return { chunks: [envelope] };
    }
    const fault = faults.artifact?.(req);
    if (fault !== undefined) return fault;
    const blob = blobs.get(req.url.split('/').pop() ?? '');
    return blob === undefined ? { status: 404 } : { chunks: [blob] };
  });
  return {
    fetcher,
    faults,
    publish(version: string, files: ReleaseFile[], k = key) {
      for (const f of files) blobs.set(sha256Hex(f.content), f.content);
      envelope = envelopeBytes(manifestOf(version, files), k);
    },
    artifactRequests: () => fetcher.seen.filter((r) => !r.url.endsWith('/manifest')).length,
  };
}

function setup(limits: Partial<Limits> = {}, store = new MemoryStore()) {
  const reg = registry();
  const time = new FakeTime();
  const events: UpdateEvent[] = [];
  const updater = createUpdateLoop({
    ...loopDeps(reg.fetcher, store, key.hex),
    clock: time,
    limits: resolveLimits({ retryBaseDelayMs: 1, retryMaxDelayMs: 2, ...limits }),
  });
  updater.on((e) => events.push(e));
  return { reg, store, updater, events };
}

function contents(store: MemoryStore): Record<string, string> {
  return Object.fromEntries([...store.current].map(([n, b]) => [n, new TextDecoder().decode(b)]));
}

describe('update loop', () => {
  it('check plans without downloading a single artifact', async () => {
    const { reg, updater, events } = setup();
    reg.publish('1.0.0', V1);
    const plan = await updater.check();
    expect(plan.toVersion).toBe('1.0.0');
    expect(plan.fetch).toHaveLength(2);
    expect(reg.artifactRequests()).toBe(0);
    expect(events.map((e) => e.type)).toEqual(['checking', 'update-available']);
  });

  it('update installs the set and reports bytes and events in order', async () => {
    const { reg, store, updater, events } = setup();
    reg.publish('1.0.0', V1);
    const result = await updater.update();
    expect(result.outcome).toBe('applied');
    expect(result.bytesDownloaded).toBe(V1.reduce((s, f) => s + f.content.length, 0));
    expect(contents(store)).toEqual({ 'app.bin': 'app version one', 'lib/util.js': 'export {}' });
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('checking');
    expect(types[1]).toBe('update-available');
    expect(types).toContain('progress');
    expect(types.at(-1)).toBe('applied');
    const status = await updater.status();
    expect(status.installedVersion).toBe('1.0.0');
    expect(status.canRollBack).toBe(false);
  });

  it('progress counts resumed bytes in `bytes` but only network bytes in `received`', async () => {
    const { reg, store, updater, events } = setup();
    const big = text('x'.repeat(4000));
    reg.publish('1.0.0', [{ name: 'big.bin', content: big }]);
    // 3000 bytes left by an earlier run; the registry answers the resume with 206.
    store.partials.set(sha256Hex(big), { bytes: big.subarray(0, 3000), validator: undefined });
    reg.faults.artifact = (req) => {
      const start = Number(/^bytes=(\d+)-$/.exec(req.headers['range'] ?? '')?.[1] ?? 0);
      return {
        status: start > 0 ? 206 : 200,
        headers: { 'content-range': `bytes ${start}-3999/4000` },
        chunks: [big.subarray(start)],
      };
    };
    const result = await updater.update();
    expect(result.bytesDownloaded).toBe(1000);
    const last = events.filter((e) => e.type === 'progress').at(-1);
    expect(last).toMatchObject({ bytes: 4000, total: 4000, received: 1000 });
  });

  it('a second update is up to date and moves no byte', async () => {
    const { reg, updater } = setup();
    reg.publish('1.0.0', V1);
    await updater.update();
    const again = await updater.update();
    expect(again.outcome).toBe('up-to-date');
    expect(again.bytesDownloaded).toBe(0);
  });

  it('pulls only the changed artifact for a new release', async () => {
    const { reg, store, updater } = setup();
    reg.publish('1.0.0', V1);
    await updater.update();
    reg.publish('1.1.0', V2);
    const before = reg.artifactRequests();
    const result = await updater.update();
    expect(reg.artifactRequests() - before).toBe(1);
    expect(result.bytesDownloaded).toBe(V2[0]?.content.length);
    expect(contents(store)['app.bin']).toBe('app version two!');
  });

  it('joins a second update() to the run in flight', async () => {
    const { reg, updater } = setup();
    reg.publish('1.0.0', V1);
    const [a, b] = await Promise.all([updater.update(), updater.update()]);
    expect(a).toBe(b);
    expect(reg.fetcher.seen.filter((r) => r.url.endsWith('/manifest'))).toHaveLength(1);
  });

  it('appends each newly accepted manifest once to the audit log', async () => {
    const { reg, store, updater } = setup();
    reg.publish('1.0.0', V1);
    await updater.check();
    await updater.update();
    reg.publish('1.1.0', V2);
    await updater.update();
    expect(store.audit.map((r) => r.version)).toEqual(['1.0.0', '1.1.0']);
  });

  it('raises the rollback floor on check, so an older manifest is refused later (ROLLBACK)', async () => {
    const { reg, store, updater } = setup();
    reg.publish('2.0.0', V1);
    await updater.check();
    expect(store.state.highestAcceptedVersion).toBe('2.0.0');
    reg.publish('1.0.0', V1);
    await expect(updater.update()).rejects.toMatchObject({ code: 'ROLLBACK' });
  });

  it('records a refusal as last_error, emits it and leaves the installed set alone', async () => {
    const { reg, store, updater, events } = setup();
    reg.publish('1.0.0', V1);
    await updater.update();
    const before = contents(store);
    reg.publish('1.1.0', V2, testKey());
    await expect(updater.update()).rejects.toMatchObject({ code: 'UNKNOWN_KEY' });
    expect(contents(store)).toEqual(before);
    expect((await updater.status()).lastError?.code).toBe('UNKNOWN_KEY');
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'UNKNOWN_KEY' });
  });

  it('retries a transient artifact failure and succeeds', async () => {
    const { reg, updater } = setup();
    reg.publish('1.0.0', V1);
    let failures = 1;
    reg.faults.artifact = () => (failures-- > 0 ? { status: 503 } : undefined);
    await expect(updater.update()).resolves.toMatchObject({ outcome: 'applied' });
  });

  it('does not retry a hash mismatch and commits nothing (HASH_MISMATCH)', async () => {
    const { reg, store, updater } = setup();
    reg.publish('1.0.0', V1);
    reg.faults.artifact = (req) =>
      req.url.endsWith(sha256Hex(V1[0]?.content ?? text('')))
        ? { chunks: [text('app version ONE')] }
        : undefined;
    await expect(updater.update()).rejects.toMatchObject({ code: 'HASH_MISMATCH' });
    expect(store.current.size).toBe(0);
    expect(store.state.installed).toBeNull();
  });

  it('maps a refused machine key to UNAUTHORIZED', async () => {
    const { reg, updater } = setup();
    reg.publish('1.0.0', V1);
    reg.fetcher.seen.length = 0;
    const bad = createUpdateLoop({
      ...loopDeps(reg.fetcher, new MemoryStore(), key.hex),
      endpoint: parseEndpoint('http://updates.test/', 'wrong'),
    });
    await expect(bad.check()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await updater.close();
  });

  it('refuses a check without a base URL, records and emits it (CONFIG_INVALID)', async () => {
    const { store, events } = setup();
    const local = createUpdateLoop({
      fetcher: new ScriptedFetcher(() => ({ status: 500 })),
      store,
      clock: new FakeTime(),
      timers: immediateTimers,
      random: () => 0.5,
      logger: silentLogger,
      pinned: pinKeys([key.hex]),
      limits: resolveLimits(),
    });
    local.on((e) => events.push(e));
    await expect(local.check()).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    expect(store.state.lastError?.code).toBe('CONFIG_INVALID');
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'CONFIG_INVALID' });
  });

  it('rolls back to the previous set once, then has nothing to roll back', async () => {
    const { reg, store, updater } = setup();
    reg.publish('1.0.0', V1);
    await updater.update();
    reg.publish('1.1.0', V2);
    await updater.update();
    expect((await updater.status()).canRollBack).toBe(true);
    await expect(updater.rollback()).resolves.toEqual({ version: '1.0.0' });
    expect(contents(store)['app.bin']).toBe('app version one');
    expect((await updater.status()).highestAcceptedVersion).toBe('1.1.0');
    await expect(updater.rollback()).rejects.toMatchObject({ code: 'NOTHING_TO_ROLL_BACK' });
  });

  it('after a rollback, check reports the bytes update moves: none (the blobs are kept)', async () => {
    const { reg, updater } = setup();
    reg.publish('1.0.0', V1);
    await updater.update();
    reg.publish('1.1.0', V2);
    await updater.update();
    await updater.rollback();
    const requestsBefore = reg.artifactRequests();
    const plan = await updater.check();
    expect(plan).toMatchObject({ fromVersion: '1.0.0', toVersion: '1.1.0', bytesToFetch: 0 });
    expect(plan.fetch).toEqual([]);
    expect(plan.reuse.map((r) => r.name)).toEqual(['app.bin', 'lib/util.js']);
    const result = await updater.update();
    expect(result).toMatchObject({ outcome: 'applied', version: '1.1.0', bytesDownloaded: 0 });
    expect(result.plan?.bytesToFetch).toBe(result.bytesDownloaded);
    expect(reg.artifactRequests()).toBe(requestsBefore);
  });

  it('verify reports no drift on an intact set', async () => {
    const { reg, updater } = setup();
    reg.publish('1.0.0', V1);
    await updater.update();
    await expect(updater.verify()).resolves.toEqual({ version: '1.0.0', ok: true, drift: [] });
  });

  it('verify reports modified, missing and unexpected files', async () => {
    const { reg, store, updater } = setup();
    reg.publish('1.0.0', V1);
    await updater.update();
    store.current.set('app.bin', text('tampered'));
    store.current.delete('lib/util.js');
    store.current.set('extra.txt', text('x'));
    const report = await updater.verify();
    expect(report.ok).toBe(false);
    expect(report.drift).toEqual([
      { name: 'app.bin', problem: 'modified' },
      { name: 'lib/util.js', problem: 'missing' },
      { name: 'extra.txt', problem: 'unexpected' },
    ]);
  });

  it('verify before any install is NOT_INSTALLED', async () => {
    const { updater } = setup();
    await expect(updater.verify()).rejects.toMatchObject({ code: 'NOT_INSTALLED' });
  });

  it('after close() every call is ABORTED', async () => {
    const { reg, updater } = setup();
    reg.publish('1.0.0', V1);
    await updater.close();
    await expect(updater.update()).rejects.toMatchObject({ code: 'ABORTED' });
  });
});

describe('bandwidth cap', () => {
  it('still completes an update under a cap (waits are on the injected timers)', async () => {
    const { reg, store, updater } = setup({ maxBytesPerS: 64 * 1024 });
    reg.publish('1.0.0', V1);
    await expect(updater.update()).resolves.toMatchObject({ outcome: 'applied' });
    expect(store.current.size).toBe(2);
  });
});

describe('staging during the pull (docs/UPDATER.md §3, Staging during the pull)', () => {
  /** A store that logs when it is told the set, opens partials and commits. */
  class TellingStore extends MemoryStore {
    readonly calls: string[] = [];
    readonly told: (SetToStage & { readonly envelope?: Uint8Array })[] = [];
    expectSet(set: SetToStage & { readonly envelope?: Uint8Array }): Promise<void> {
      this.told.push(set);
      this.calls.push('expectSet');
      return Promise.resolve();
    }
    override openPartial(sha256: string, size: number): Promise<PartialBlob> {
      this.calls.push('openPartial');
      return super.openPartial(sha256, size);
    }
    override commitSet(...args: Parameters<MemoryStore['commitSet']>): Promise<void> {
      this.calls.push('commitSet');
      return super.commitSet(...args);
    }
  }

  it('tells the store the set it will commit, every name and digest, before the first download', async () => {
    const store = new TellingStore();
    const { reg, updater } = setup({}, store);
    reg.publish('1.0.0', V1);
    await updater.update();
    expect(store.calls[0]).toBe('expectSet');
    expect(store.calls.filter((c) => c === 'openPartial')).toHaveLength(2);
    expect(store.calls.at(-1)).toBe('commitSet');
    const told = store.told[0];
    expect(told?.setId).toBe(store.state.installed?.setId);
    expect(told?.dir).toBeUndefined();
    expect(told?.artifacts).toEqual(
      V1.map((f) => ({ name: f.name, size: f.content.length, sha256: sha256Hex(f.content) })),
    );
    // The signed bytes the commit keeps, known as early: a store may write them during the pull.
    expect(told?.envelope).toEqual(store.envelopes.get(told?.setId ?? ''));
    expect(told?.envelope?.length).toBeGreaterThan(0);
  });

  it('tells a repair its fresh directory, the one it commits', async () => {
    const store = new TellingStore();
    const { reg, updater } = setup({}, store);
    reg.publish('1.0.0', V1);
    await updater.update();
    store.current.delete('app.bin'); // damaged: the next update repairs
    await updater.update();
    const repair = store.told[1];
    expect(repair?.dir).toMatch(/^[0-9a-f]{64}$/);
    expect(repair?.dir).toBe(store.state.installed?.dir);
  });
});
