/**
 * The conditional manifest fetch (docs/PROTOCOL.md §2.7.6): If-None-Match from the kept answer,
 * a 304 answered with the kept bytes (verified by the caller like any answer), a 200 kept with
 * its ETag, and a cache that fails never failing the fetch.
 */
import { describe, expect, it } from 'vitest';
import type { AnswerCache, CachedAnswer } from '#core/trust/answer-cache.js';
import { fetchManifest } from '#core/trust/fetch-manifest.js';
import {
  ScriptedFetcher,
  text,
  type ScriptedResponse,
  type SeenRequest,
  httpContextOf,
} from '#test/fakes.js';

function ctx(handler: (req: SeenRequest) => ScriptedResponse) {
  return httpContextOf(new ScriptedFetcher(handler));
}

const MANIFEST_URL = 'http://updates.test/api/updates/manifest';

class MemoryCache implements AnswerCache {
  saved: CachedAnswer[] = [];
  constructor(
    public kept: CachedAnswer | undefined = undefined,
    public keptFor = MANIFEST_URL,
  ) {}
  load(resource: string): Promise<CachedAnswer | undefined> {
    return Promise.resolve(resource === this.keptFor ? this.kept : undefined);
  }
  save(resource: string, answer: CachedAnswer): Promise<void> {
    this.saved.push(answer);
    this.kept = answer;
    this.keptFor = resource;
    return Promise.resolve();
  }
}

const signal = new AbortController().signal;
const decode = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

describe('fetchManifest with an answer cache', () => {
  it('asks unconditionally with nothing kept, and keeps a 200 with its ETag', async () => {
    const cache = new MemoryCache();
    const { http, fetcher } = ctx(() => ({ headers: { etag: '"t1"' }, chunks: [text('{"a":1}')] }));
    expect(decode(await fetchManifest(http, signal, cache))).toBe('{"a":1}');
    expect(fetcher.seen[0]?.headers['if-none-match']).toBeUndefined();
    expect(cache.saved.map((a) => [a.etag, decode(a.bytes)])).toEqual([['"t1"', '{"a":1}']]);
  });

  it('sends If-None-Match and answers a 304 with the kept bytes, reading no body', async () => {
    const cache = new MemoryCache({ etag: '"t1"', bytes: text('{"kept":1}') });
    const { http, fetcher } = ctx(() => ({ status: 304, headers: { etag: '"t1"' } }));
    expect(decode(await fetchManifest(http, signal, cache))).toBe('{"kept":1}');
    expect(fetcher.seen[0]?.headers['if-none-match']).toBe('"t1"');
    expect(fetcher.seen[0]?.headers['authorization']).toBe('Bearer mk-secret');
    expect(cache.saved).toEqual([]);
  });

  it('takes a 200 over the kept answer and keeps the new one', async () => {
    const cache = new MemoryCache({ etag: '"t1"', bytes: text('old') });
    const { http } = ctx(() => ({ headers: { etag: '"t2"' }, chunks: [text('new')] }));
    expect(decode(await fetchManifest(http, signal, cache))).toBe('new');
    expect(cache.kept?.etag).toBe('"t2"');
  });

  it('keeps nothing from an answer without an ETag', async () => {
    const cache = new MemoryCache();
    const { http } = ctx(() => ({ chunks: [text('{}')] }));
    await fetchManifest(http, signal, cache);
    expect(cache.saved).toEqual([]);
  });

  it('refuses a 304 to a request that was not conditional (HTTP_STATUS)', async () => {
    const { http } = ctx(() => ({ status: 304 }));
    await expect(fetchManifest(http, signal, new MemoryCache())).rejects.toMatchObject({
      code: 'HTTP_STATUS',
    });
    await expect(fetchManifest(http, signal)).rejects.toMatchObject({ code: 'HTTP_STATUS' });
  });

  it('asks unconditionally when the cache cannot be read, and a failed save fails nothing', async () => {
    const broken: AnswerCache = {
      load: () => Promise.reject(new Error('EIO')),
      save: () => Promise.reject(new Error('ENOSPC')),
    };
    const { http, fetcher } = ctx(() => ({ headers: { etag: '"t"' }, chunks: [text('{}')] }));
    expect(decode(await fetchManifest(http, signal, broken))).toBe('{}');
    expect(fetcher.seen[0]?.headers['if-none-match']).toBeUndefined();
  });

  it('never sends the ETag of an answer another URL gave (RFC 9110 §8.8.3)', async () => {
    const cache = new MemoryCache(
      { etag: '"same"', bytes: text('{"old":1}') },
      'http://elsewhere.test/api/updates/manifest',
    );
    const { http, fetcher } = ctx(() => ({
      headers: { etag: '"same"' },
      chunks: [text('{"new":1}')],
    }));
    expect(decode(await fetchManifest(http, signal, cache))).toBe('{"new":1}');
    expect(fetcher.seen[0]?.headers['if-none-match']).toBeUndefined();
    expect(cache.keptFor).toBe(MANIFEST_URL);
  });
});

describe('fetchManifest overlapping its caller', () => {
  /** A cache whose save resolves only when told to. */
  function heldCache() {
    let release = (): void => undefined;
    const cache = new MemoryCache();
    let settled = false;
    cache.save = (_resource, answer) => {
      cache.saved.push(answer);
      return new Promise<void>((resolve) => {
        release = () => {
          settled = true;
          resolve();
        };
      });
    };
    return { cache, release: () => release(), settled: () => settled };
  }

  it('waits for the keeping of a 200 without `keeping`', async () => {
    const { cache, release } = heldCache();
    const { http } = ctx(() => ({ headers: { etag: '"t1"' }, chunks: [text('{}')] }));
    let done = false;
    const fetched = fetchManifest(http, signal, cache).then(() => (done = true));
    await expect.poll(() => cache.saved.length).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    release();
    await fetched;
  });

  it('hands the bytes back while the answer is kept, the keeping to `keeping`', async () => {
    const { cache, release, settled } = heldCache();
    const { http } = ctx(() => ({ headers: { etag: '"t1"' }, chunks: [text('{"a":1}')] }));
    const kept: Promise<void>[] = [];
    const bytes = await fetchManifest(http, signal, cache, undefined, {
      keeping: (p) => void kept.push(p),
    });
    expect(decode(bytes)).toBe('{"a":1}');
    expect(kept).toHaveLength(1);
    expect(settled()).toBe(false);
    release();
    await kept[0];
    expect(settled()).toBe(true);
  });

  it('hands a failed keeping over settled, never rejected', async () => {
    const cache = new MemoryCache();
    cache.save = () => Promise.reject(new Error('disk full'));
    const { http } = ctx(() => ({ headers: { etag: '"t1"' }, chunks: [text('{}')] }));
    const kept: Promise<void>[] = [];
    await fetchManifest(http, signal, cache, undefined, { keeping: (p) => void kept.push(p) });
    await expect(kept[0]).resolves.toBeUndefined();
  });

  it('runs `whileWaiting` by a timer, once the GET was handed to the fetcher', async () => {
    const { http, fetcher } = ctx(() => ({ chunks: [text('{}')] }));
    const scheduled: { ms: number; requests: number }[] = [];
    let ran = 0;
    const timers = http.timers;
    const watched = {
      ...http,
      timers: {
        setTimeout: (fn: () => void, ms: number) => {
          scheduled.push({ ms, requests: fetcher.seen.length });
          return timers.setTimeout(fn, ms);
        },
        clearTimeout: (handle: unknown) => timers.clearTimeout(handle as never),
      },
    };
    const whileWaiting = (): void => void ran++;
    await fetchManifest(watched, signal, undefined, undefined, { whileWaiting });
    // The stall watch arms its own timers; this one is the only one of no delay.
    expect(scheduled.filter((t) => t.ms === 0)).toEqual([{ ms: 0, requests: 1 }]);
    expect(ran).toBe(0); // a timer of its own: never called in line
  });
});
