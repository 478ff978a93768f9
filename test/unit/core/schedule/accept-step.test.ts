/**
 * src/core/schedule/accept-step.ts: what counts as an unchanged acceptance (no write needed within an
 * update, which writes the state at its end), and that a no-op update reads and writes the
 * state once while every change of the trust record is still written (docs/PROTOCOL.md §2.7).
 */
import { describe, expect, it } from 'vitest';
import { acceptanceUnchanged } from '#core/schedule/accept-step.js';
import { EMPTY_STATE, type UpdaterState } from '#core/state.js';
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
} from '#test/fakes.js';
import { loopDeps } from '#test/update-loop-kit.js';

const D1 = '1'.repeat(64);
const D2 = '2'.repeat(64);
const role = { threshold: 1, keys: ['a'.repeat(64)] };
const trusted: UpdaterState = {
  ...EMPTY_STATE,
  highestAcceptedVersion: '1.0.0',
  releaseDigests: { '1.0.0': D1 },
  trust: { keySet: { version: 1, root: role, release: role, freshness: role }, retired: [] },
  freshness: { sequence: 7, releaseSha256: D1 },
};

describe('acceptanceUnchanged', () => {
  it('is true when only the times differ', () => {
    expect(acceptanceUnchanged(trusted, { ...trusted, lastCheckAtMs: 5 })).toBe(true);
  });

  it('is false for a higher freshness floor, even for the same release', () => {
    const next = { ...trusted, freshness: { sequence: 8, releaseSha256: D1 } };
    expect(acceptanceUnchanged(trusted, next)).toBe(false);
  });

  it('is false for a newer key set or a retired keyid', () => {
    const keySet = { ...trusted.trust!.keySet, version: 2 };
    expect(acceptanceUnchanged(trusted, { ...trusted, trust: { keySet, retired: [] } })).toBe(
      false,
    );
    const retired = { keySet: trusted.trust!.keySet, retired: ['b'.repeat(64)] };
    expect(acceptanceUnchanged(trusted, { ...trusted, trust: retired })).toBe(false);
  });

  it('is false for a new digest or a raised rollback floor', () => {
    const digests = { ...trusted.releaseDigests, '1.1.0': D2 };
    expect(acceptanceUnchanged(trusted, { ...trusted, releaseDigests: digests })).toBe(false);
    expect(acceptanceUnchanged(trusted, { ...trusted, highestAcceptedVersion: '1.1.0' })).toBe(
      false,
    );
    const format1 = { ...trusted, acceptedDigests: { '1.0.0': D2 } };
    expect(acceptanceUnchanged(trusted, format1)).toBe(false);
  });
});

class CountingStore extends MemoryStore {
  loads = 0;
  readonly lookups: string[] = [];
  override loadState(): Promise<UpdaterState> {
    this.loads++;
    return super.loadState();
  }
  override hasBlob(sha256: string, size: number): Promise<boolean> {
    this.lookups.push(sha256);
    return super.hasBlob(sha256, size);
  }
}

describe('a no-op run', () => {
  const key = testKey();
  const files = [{ name: 'app.bin', content: text('app version one') }];
  const setup = () => {
    const blob = files[0]!.content;
    let envelope = envelopeBytes(manifestOf('1.0.0', files), key);
    const fetcher = new ScriptedFetcher((req) =>
      req.url.endsWith('/api/updates/manifest') ? { chunks: [envelope] } : { chunks: [blob] },
    );
    const store = new CountingStore();
    const time = new FakeTime();
    const updater = createUpdateLoop({ ...loopDeps(fetcher, store, key.hex), clock: time });
    const republish = (version: string) => {
      envelope = envelopeBytes(manifestOf(version, files), key);
    };
    return { store, time, updater, republish };
  };

  it('update reads the state once and writes it once, with both times', async () => {
    const { store, time, updater } = setup();
    await updater.update();
    store.loads = 0;
    store.saves = 0;
    time.advance(60_000);
    const result = await updater.update();
    expect(result.outcome).toBe('up-to-date');
    expect(store.loads).toBe(1);
    expect(store.saves).toBe(1);
    expect(store.state.lastCheckAtMs).toBe(time.nowMs());
    expect(store.state.lastSuccessAtMs).toBe(time.nowMs());
  });

  it('update still writes the acceptance first when it changes (a new digest)', async () => {
    const { store, updater, republish } = setup();
    await updater.update();
    // The same files under a new version: a new acceptance (floor and digest), then a commit.
    republish('1.0.1');
    store.saves = 0;
    const result = await updater.update();
    expect(result.outcome).toBe('applied');
    expect(store.saves).toBe(1);
    expect(store.state.highestAcceptedVersion).toBe('1.0.1');
  });

  it('check still records its time', async () => {
    const { store, time, updater } = setup();
    await updater.update();
    store.saves = 0;
    time.advance(60_000);
    await updater.check();
    expect(store.saves).toBe(1);
    expect(store.state.lastCheckAtMs).toBe(time.nowMs());
  });

  it('a first install asks the blob store once per digest, for the plan and the pull', async () => {
    const { store, updater } = setup();
    const result = await updater.update();
    expect(result.outcome).toBe('applied');
    expect(store.lookups).toEqual([sha256Hex(files[0]!.content)]);
  });
});

describe('the answer kept beside the acceptance', () => {
  const key = testKey();
  const files = [{ name: 'app.bin', content: text('app version one') }];
  /** A loop whose answer cache holds each save until released. */
  const setup = (signedBy = key) => {
    const envelope = envelopeBytes(manifestOf('1.0.0', files), signedBy);
    const fetcher = new ScriptedFetcher(() => ({ headers: { etag: '"t1"' }, chunks: [envelope] }));
    const store = new CountingStore();
    const held: (() => void)[] = [];
    const answers = {
      load: () => Promise.resolve(undefined),
      save: () => new Promise<void>((resolve) => void held.push(resolve)),
    };
    const updater = createUpdateLoop({ ...loopDeps(fetcher, store, key.hex), answers });
    return { store, held, updater };
  };
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('records the acceptance only once the answer is kept', async () => {
    const { store, held, updater } = setup();
    let done = false;
    const checked = updater.check().then(() => (done = true));
    await expect.poll(() => held.length).toBe(1);
    await settle();
    expect(store.saves).toBe(0);
    expect(done).toBe(false);
    held[0]!();
    await checked;
    expect(store.saves).toBe(1);
  });

  it('settles a refused answer only once it is kept (nothing left in flight)', async () => {
    const { held, updater } = setup(testKey());
    let done = false;
    const checked = updater.check().then(
      () => (done = true),
      (error: unknown) => {
        done = true;
        return error;
      },
    );
    await expect.poll(() => held.length).toBe(1);
    await settle();
    expect(done).toBe(false);
    held[0]!();
    expect(await checked).toMatchObject({ code: 'UNKNOWN_KEY' });
  });
});
