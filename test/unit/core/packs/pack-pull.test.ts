/**
 * The pack pull hands the store only members its range fetch verified (docs/UPDATER.md §11,
 * steps 3-5): through `storeVerified`, which does not hash them again, so the member check is
 * the one that decides; a member that fails it never reaches the store and is left to be
 * fetched whole.
 */
import { describe, expect, it } from 'vitest';
import type { ManifestArtifact } from '#protocol/manifest.js';
import { pullPacks } from '#core/packs/pack-pull.js';
import { parseEndpoint } from '#core/transfer/endpoint.js';
import type { HttpContext } from '#core/transfer/http-get.js';
import { DEFAULT_LIMITS } from '#core/limits.js';
import { silentLogger } from '#core/ports.js';
import {
  FakeTime,
  MemoryStore,
  ScriptedFetcher,
  sha256Hex,
  type ScriptedResponse,
  type SeenRequest,
} from '#test/fakes.js';

const MEMBER = 1000;
const members = [0, 1, 2].map((i) =>
  Uint8Array.from({ length: MEMBER }, (_x, j) => (i * 31 + j) & 0xff),
);
const PACK = Buffer.concat(members);
const PACK_SHA = sha256Hex(PACK);
const artifacts: ManifestArtifact[] = members.map((bytes, i) => ({
  name: `m${i}.bin`,
  size: MEMBER,
  sha256: sha256Hex(bytes),
  url: `m${i}.bin`,
  pack: { sha256: PACK_SHA, size: PACK.length, url: 'pack.bin', offset: i * MEMBER },
}));

/** Serves PACK's ranges as single 206 answers; with `corruptAt`, one byte flipped. */
function serve(req: SeenRequest, corruptAt?: number): ScriptedResponse {
  const spec = /^bytes=(\d+)-(\d+)$/.exec(req.headers['range'] ?? '');
  if (spec === null) return { status: 416 };
  const start = Number(spec[1]);
  const end = Number(spec[2]);
  const bytes = Uint8Array.from(PACK.subarray(start, end + 1));
  if (corruptAt !== undefined && corruptAt >= start && corruptAt <= end) {
    bytes[corruptAt - start] = (bytes[corruptAt - start] as number) ^ 0xff;
  }
  return {
    status: 206,
    headers: {
      'content-range': `bytes ${start}-${end}/${PACK.length}`,
      'content-length': String(bytes.length),
    },
    chunks: [bytes],
  };
}

/** A MemoryStore that records what it was handed as verified, and each partial opened. */
class RecordingStore extends MemoryStore {
  readonly verified: { sha256: string; bytes: Uint8Array }[] = [];
  readonly opened: string[] = [];

  storeVerified(sha256: string, size: number, bytes: Uint8Array): Promise<void> {
    expect(bytes.length).toBe(size);
    this.verified.push({ sha256, bytes: Uint8Array.from(bytes) });
    this.blobs.set(sha256, Uint8Array.from(bytes));
    return Promise.resolve();
  }

  override openPartial(sha256: string, size: number) {
    this.opened.push(sha256);
    return super.openPartial(sha256, size);
  }
}

async function pull(store: MemoryStore, corruptAt?: number) {
  const time = new FakeTime();
  const http: HttpContext = {
    fetcher: new ScriptedFetcher((req) => serve(req, corruptAt)),
    clock: time,
    timers: time,
    limits: { ...DEFAULT_LIMITS, parallel: 1, retries: 1, retryBaseDelayMs: 0, retryMaxDelayMs: 0 },
    endpoint: parseEndpoint('http://primary.test', 'mk'),
    userAgent: 'test',
  };
  const ctx = {
    http,
    store,
    random: () => 0,
    logger: silentLogger,
    signal: new AbortController().signal,
  };
  let settled = false;
  const work = pullPacks(ctx, artifacts).finally(() => {
    settled = true;
  });
  // Retry backoffs wait on the fake timers: move time on a millisecond per turn until done.
  while (!settled) {
    await new Promise((resolve) => setImmediate(resolve));
    time.advance(1);
  }
  return work;
}

describe('pullPacks and the store (docs/UPDATER.md §11)', () => {
  it('hands each member to storeVerified once, with its verified bytes; opens no partial', async () => {
    const store = new RecordingStore();
    const result = await pull(store);
    expect(result).toEqual({ left: [], members: 3 });
    expect(store.verified.map((v) => v.sha256).sort()).toEqual(
      artifacts.map((a) => a.sha256).sort(),
    );
    for (const v of store.verified) expect(sha256Hex(v.bytes)).toBe(v.sha256);
    expect(store.opened).toEqual([]);
  });

  it('never hands over a member whose bytes fail the check: it is left to be fetched whole', async () => {
    const store = new RecordingStore();
    const victim = artifacts[1] as ManifestArtifact;
    const result = await pull(store, MEMBER + 17);
    expect(result.left).toEqual([victim]);
    expect(result.members).toBe(2);
    expect(store.verified.map((v) => v.sha256)).not.toContain(victim.sha256);
    for (const v of store.verified) expect(sha256Hex(v.bytes)).toBe(v.sha256);
    expect(store.blobs.has(victim.sha256)).toBe(false);
  });

  it('goes through a partial, which hashes, where the store has no storeVerified', async () => {
    const store = new MemoryStore();
    const result = await pull(store);
    expect(result).toEqual({ left: [], members: 3 });
    for (const a of artifacts) expect(store.blobs.get(a.sha256)?.length).toBe(MEMBER);
  });
});
