import { describe, expect, it } from 'vitest';
import { parseEndpoint } from '#core/transfer/endpoint.js';
import { UpdateError } from '#core/errors.js';
import { DEFAULT_LIMITS } from '#core/limits.js';
import { silentLogger, type Fetcher } from '#core/ports.js';
import { missingBlobs, pullBlobs, type PullContext } from '#core/transfer/pull.js';
import type { ManifestArtifact } from '#protocol/manifest.js';
import { FakeTime, MemoryStore, ScriptedFetcher, sha256Hex, text } from '#test/fakes.js';

const a1 = text('a one');
const a2 = text('a two!');
const b1 = text('b one, longer');

function artifact(name: string, content: Uint8Array): ManifestArtifact {
  const sha256 = sha256Hex(content);
  return { name, size: content.length, sha256, url: `api/updates/artifacts/${sha256}` };
}

describe('missingBlobs (what a pull fetches)', () => {
  it('fetches only the changed artifact when the store holds the rest', async () => {
    const store = new MemoryStore();
    store.blobs.set(sha256Hex(a1), a1);
    store.blobs.set(sha256Hex(b1), b1);
    const todo = await missingBlobs(store, [artifact('a', a2), artifact('b', b1)]);
    expect(todo.map((d) => d.name)).toEqual(['a']);
  });

  it('downloads identical contents once', async () => {
    const todo = await missingBlobs(new MemoryStore(), [artifact('x', a1), artifact('y', a1)]);
    expect(todo).toHaveLength(1);
  });

  it('fetches a blob the store lost although the installed set names it (repair)', async () => {
    const todo = await missingBlobs(new MemoryStore(), [artifact('a', a1)]);
    expect(todo.map((d) => d.name)).toEqual(['a']);
  });

  it('does not fetch a blob kept in the store for another set', async () => {
    const store = new MemoryStore();
    store.blobs.set(sha256Hex(b1), b1);
    expect(await missingBlobs(store, [artifact('renamed', b1)])).toEqual([]);
  });
});

/** A store that promotes behind the downloads: `settleBlobs` is the pull's batch boundary. */
class SettlingStore extends MemoryStore {
  settles = 0;
  failWith: UpdateError | undefined;

  settleBlobs(): Promise<void> {
    this.settles++;
    return this.failWith === undefined ? Promise.resolve() : Promise.reject(this.failWith);
  }
}

function pullContext(store: MemoryStore, contents: readonly Uint8Array[]): PullContext {
  const bySha = new Map(contents.map((c) => [sha256Hex(c), c]));
  const time = new FakeTime();
  const fetcher = new ScriptedFetcher((req) => {
    const body = bySha.get(req.url.split('/').pop() ?? '');
    return body === undefined
      ? { status: 404, headers: {}, chunks: [] }
      : { status: 200, headers: {}, chunks: [body] };
  });
  return {
    http: {
      fetcher,
      clock: time,
      timers: time,
      limits: DEFAULT_LIMITS,
      endpoint: parseEndpoint('http://updates.test', 'mk'),
      userAgent: 'test',
    },
    store,
    random: () => 0.5,
    logger: silentLogger,
    signal: new AbortController().signal,
  };
}

describe('pullBlobs settles the store before it returns', () => {
  it('waits for the store to promote every blob, once per pull', async () => {
    const store = new SettlingStore();
    const ctx = pullContext(store, [a1, b1]);
    const todo = [artifact('a', a1), artifact('b', b1)];
    expect(await pullBlobs(ctx, todo, () => undefined)).toBe(a1.length + b1.length);
    expect(store.settles).toBe(1);
  });

  it('fails the pull with a promotion that failed behind the downloads', async () => {
    const store = new SettlingStore();
    store.failWith = new UpdateError('IO', 'fsync failed');
    const ctx = pullContext(store, [a1]);
    await expect(pullBlobs(ctx, [artifact('a', a1)], () => undefined)).rejects.toMatchObject({
      code: 'IO',
    });
  });

  it('still settles after a refusal, and reports the refusal rather than the settle', async () => {
    const store = new SettlingStore();
    store.failWith = new UpdateError('IO', 'fsync failed');
    const ctx = pullContext(store, []);
    await expect(pullBlobs(ctx, [artifact('gone', a2)], () => undefined)).rejects.not.toMatchObject(
      { code: 'IO' },
    );
    expect(store.settles).toBe(1);
  });
});

/**
 * A fetcher answering every artifact after a turn of the event loop, counting the GETs in flight
 * (from the request to the body's end); `pipelined` is what its `pipelines` answers.
 */
function countingContext(contents: readonly Uint8Array[], pipelined: boolean | undefined) {
  const bySha = new Map(contents.map((c) => [sha256Hex(c), c]));
  const seen = { inFlight: 0, most: 0, large: 0, mostWithLarge: 0 };
  const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  const fetcher: Fetcher = {
    async get(url) {
      seen.inFlight++;
      seen.most = Math.max(seen.most, seen.inFlight);
      await turn();
      const body = bySha.get(url.split('/').pop() ?? '') ?? new Uint8Array();
      const large = body.length > 256 * 1024;
      if (large) seen.large++;
      if (seen.large > 0) seen.mostWithLarge = Math.max(seen.mostWithLarge, seen.inFlight);
      return {
        status: 200,
        header: (name) => (name === 'content-length' ? String(body.length) : undefined),
        body: (async function* () {
          await turn();
          yield body;
          seen.inFlight--;
          if (large) seen.large--;
        })(),
        discard: () => undefined,
      };
    },
    ...(pipelined === undefined ? {} : { pipelines: () => pipelined }),
  };
  const ctx = pullContext(new MemoryStore(), contents);
  return { ctx: { ...ctx, http: { ...ctx.http, fetcher } }, seen };
}

describe('pullBlobs keeps more GETs outstanding over pipelined connections', () => {
  const contents = Array.from({ length: 40 }, (_, i) => text(`small artifact ${i}`));
  const todo = contents.map((c, i) => artifact(`s${i}`, c));

  it('runs 4 slots per connection for small blobs the fetcher pipelines', async () => {
    const { ctx, seen } = countingContext(contents, true);
    await pullBlobs(ctx, todo, () => undefined);
    expect(seen.most).toBe(DEFAULT_LIMITS.parallel * 4);
    expect(ctx.store instanceof MemoryStore && ctx.store.blobs.size).toBe(40);
  });

  it('runs limits.parallel slots when the fetcher does not pipeline', async () => {
    for (const pipelined of [false, undefined]) {
      const { ctx, seen } = countingContext(contents, pipelined);
      await pullBlobs(ctx, todo, () => undefined);
      expect(seen.most).toBe(DEFAULT_LIMITS.parallel);
    }
  });

  it('starts the extra slots only once every large blob is in', async () => {
    const large = new Uint8Array(256 * 1024 + 1).fill(7);
    const { ctx, seen } = countingContext([large, ...contents], true);
    await pullBlobs(ctx, [...todo, artifact('large', large)], () => undefined);
    expect(seen.mostWithLarge).toBeGreaterThan(0);
    expect(seen.mostWithLarge).toBeLessThanOrEqual(DEFAULT_LIMITS.parallel);
    expect(seen.most).toBe(DEFAULT_LIMITS.parallel * 4);
  });

  it('keeps blobs over 256 KiB to limits.parallel slots', async () => {
    const large = Array.from({ length: 8 }, (_, i) => new Uint8Array(256 * 1024 + 1).fill(i));
    const { ctx, seen } = countingContext(large, true);
    await pullBlobs(
      ctx,
      large.map((c, i) => artifact(`l${i}`, c)),
      () => undefined,
    );
    expect(seen.most).toBe(DEFAULT_LIMITS.parallel);
  });
});
