/**
 * src/core/schedule/record-gate.ts: an update's pack requests leave while its acceptance is
 * being written, and nothing of the new set reaches the store before `accepted-recorded`
 * (docs/UPDATER.md §3, Requests before `accepted-recorded`).
 */
import { describe, expect, it } from 'vitest';
import type { Manifest } from '#protocol/manifest.js';
import { UpdateError } from '#core/errors.js';
import { resolveLimits } from '#core/limits.js';
import type { PartialBlob } from '#core/ports.js';
import type { UpdaterState } from '#core/state.js';
import { gateWrites } from '#core/schedule/record-gate.js';
import { createUpdateLoop } from '#core/schedule/update-loop.js';
import {
  envelopeBytes,
  manifestOf,
  MemoryStore,
  ScriptedFetcher,
  testKey,
  text,
  type ScriptedResponse,
  type SeenRequest,
} from '#test/fakes.js';
import { loopDeps } from '#test/update-loop-kit.js';

const key = testKey();
const FILES = ['a.txt', 'b.txt', 'c.txt'].map((name, i) => ({
  name,
  content: text(`member ${i} `.repeat(20 + i)),
}));
const PACK = new Uint8Array(Buffer.concat(FILES.map((f) => f.content)));
const PACK_URL = 'packs/p1';

/** The release with all three files as members of one pack. */
function packedManifest(): Manifest {
  const manifest = manifestOf('1.0.0', FILES);
  let offset = 0;
  const offsets = new Map<string, number>();
  for (const f of FILES) {
    offsets.set(f.name, offset);
    offset += f.content.length;
  }
  const pack = { sha256: 'f'.repeat(64), size: PACK.length, url: PACK_URL };
  return {
    ...manifest,
    artifacts: manifest.artifacts.map((a) => ({
      ...a,
      pack: { ...pack, offset: offsets.get(a.name) ?? 0 },
    })),
  };
}

/** A 206 of the one range asked (the three members coalesce into one). */
function packAnswer(req: SeenRequest): ScriptedResponse {
  const match = /^bytes=(\d+)-(\d+)$/.exec(req.headers['range'] ?? '');
  if (match === null) return { status: 416 };
  const start = Number(match[1]);
  const end = Number(match[2]);
  return {
    status: 206,
    headers: { 'content-range': `bytes ${start}-${end}/${PACK.length}` },
    chunks: [PACK.subarray(start, end + 1)],
  };
}

/** A store whose first state write is held until `release`, logging what reaches it. */
class HeldStore extends MemoryStore {
  readonly log: string[] = [];
  failWith: Error | undefined;
  private writes = 0;
  private opened: () => void = () => undefined;
  readonly release: Promise<void>;
  releaseNow: () => void = () => undefined;

  constructor() {
    super();
    this.release = new Promise((resolve) => {
      this.releaseNow = resolve;
    });
  }

  override async saveState(state: UpdaterState): Promise<void> {
    if (this.writes++ > 0) return super.saveState(state);
    this.log.push('state write started');
    await this.release;
    if (this.failWith !== undefined) throw this.failWith;
    await super.saveState(state);
    this.log.push('state durable');
  }

  override openPartial(sha256: string, size: number): Promise<PartialBlob> {
    this.log.push('partial opened');
    this.opened();
    return super.openPartial(sha256, size);
  }

  /** A pack member, checked by the pull, handed over whole (LocalStore.storeVerified). */
  async storeVerified(sha256: string, size: number, bytes: Uint8Array): Promise<void> {
    this.log.push('member stored');
    const partial = await super.openPartial(sha256, size);
    await partial.write(bytes);
    await partial.complete();
  }

  /** The set the pull will commit, told before its first byte (staging during the pull). */
  expectSet(): Promise<void> {
    this.log.push('set expected');
    return Promise.resolve();
  }
}

function setup(serve: (req: SeenRequest) => ScriptedResponse = packAnswer) {
  const store = new HeldStore();
  const envelope = envelopeBytes(packedManifest(), key);
  const fetcher = new ScriptedFetcher((req) => {
    if (req.url.endsWith('/api/updates/manifest')) return { chunks: [envelope] };
    store.log.push(`request ${new URL(req.url).pathname}`);
    return serve(req);
  });
  const updater = createUpdateLoop({
    ...loopDeps(fetcher, store, key.hex),
    limits: resolveLimits({ retryBaseDelayMs: 1, retryMaxDelayMs: 2 }),
    onStep: (step) => store.log.push(step),
  });
  return { store, updater };
}

/** Lets every task that can run without the held write run (bounded: never hangs). */
async function settleWhileHeld(log: readonly string[], entry: string): Promise<void> {
  for (let i = 0; i < 200 && !log.includes(entry); i++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('the pull while the acceptance is recorded', () => {
  it('asks the pack before the state is durable, and writes no member before it', async () => {
    const { store, updater } = setup();
    const run = updater.update();
    await settleWhileHeld(store.log, 'request /packs/p1');
    // The request left while the state write is held; nothing was written meanwhile.
    expect(store.log).toEqual(['state write started', 'request /packs/p1']);
    store.releaseNow();
    const result = await run;
    expect(result.outcome).toBe('applied');
    // Members go in through storeVerified, and the staging tree is a write too: both after.
    const recorded = store.log.indexOf('accepted-recorded');
    expect(store.log.filter((e) => e === 'member stored')).toHaveLength(FILES.length);
    expect(store.log.indexOf('member stored')).toBeGreaterThan(recorded);
    expect(store.log.indexOf('set expected')).toBeGreaterThan(recorded);
    expect(store.log.indexOf('accepted-recorded')).toBeGreaterThan(
      store.log.indexOf('state durable'),
    );
    expect(store.blobs.size).toBe(FILES.length);
    expect(store.state.installed?.version).toBe('1.0.0');
  });

  it('aborts the pull and writes nothing when the acceptance cannot be recorded', async () => {
    const { store, updater } = setup();
    store.failWith = new UpdateError('IO', 'disk full');
    const run = updater.update();
    const outcome = run.catch((error: unknown) => error);
    await settleWhileHeld(store.log, 'request /packs/p1');
    store.releaseNow();
    const error = await outcome;
    expect(error).toBeInstanceOf(UpdateError);
    expect((error as UpdateError).code).toBe('IO');
    // Aborted, not handed to the whole-file pull: no GET of an artifact was made.
    expect(store.log.filter((e) => e.startsWith('request '))).toEqual(['request /packs/p1']);
    expect(store.log).not.toContain('partial opened');
    expect(store.log).not.toContain('member stored');
    expect(store.log).not.toContain('set expected');
    expect(store.log).not.toContain('accepted-recorded');
    expect(store.blobs.size).toBe(0);
    expect(store.partials.size).toBe(0);
    expect(store.state.installed).toBeNull();
  });

  it('fails a pull that fails before the record only once the record is durable', async () => {
    const { store, updater } = setup(() => ({ status: 404 }));
    let settled = false;
    const run = updater.update().finally(() => {
      settled = true;
    });
    const outcome = run.catch((error: unknown) => error);
    await settleWhileHeld(store.log, 'request /api/updates/artifacts/');
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    store.releaseNow();
    const error = await outcome;
    expect((error as UpdateError).code).toBe('HTTP_STATUS');
    // The acceptance was recorded, then the failure on top of it.
    expect(store.state.highestAcceptedVersion).toBe('1.0.0');
    expect(store.state.lastError?.code).toBe('HTTP_STATUS');
    const partials = store.log.flatMap((e, i) => (e === 'partial opened' ? [i] : []));
    expect(Math.min(...partials)).toBeGreaterThan(store.log.indexOf('accepted-recorded'));
  });
});

describe('gateWrites', () => {
  it('passes reads at once and holds every write until the gate opens', async () => {
    const store = new MemoryStore();
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const gated = gateWrites(store, gate);
    expect(await gated.hasBlob('a'.repeat(64), 1)).toBe(false);
    await gated.loadState();
    let wrote = false;
    const write = gated.saveEnvelope('s', new Uint8Array([1])).then(() => {
      wrote = true;
    });
    for (let i = 0; i < 10; i++) await Promise.resolve();
    expect(wrote).toBe(false);
    expect(store.envelopes.size).toBe(0);
    open();
    await write;
    expect(store.envelopes.get('s')).toEqual(new Uint8Array([1]));
  });

  it('fails every write with the gate failure and never runs it', async () => {
    const store = new MemoryStore();
    const gate = Promise.reject(new UpdateError('IO', 'record failed'));
    gate.catch(() => undefined);
    const gated = gateWrites(store, gate);
    await expect(gated.openPartial('a'.repeat(64), 1)).rejects.toMatchObject({ code: 'IO' });
    await expect(
      gated.appendAudit({ version: '1', payloadSha256: 'x', keyid: 'k', atMs: 0 }),
    ).rejects.toMatchObject({ code: 'IO' });
    expect(store.partials.size).toBe(0);
    expect(store.audit).toHaveLength(0);
  });
});
