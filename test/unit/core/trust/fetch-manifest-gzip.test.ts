/**
 * A gzip-coded manifest answer (docs/PROTOCOL.md §2.7.6, Content coding): offered on the
 * manifest GET alone, inflated as it streams, capped on the inflated bytes, verified and kept
 * as the inflated bytes; any other coding, or a gzip stream that does not inflate, refused.
 */
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { AnswerCache, CachedAnswer } from '#core/trust/answer-cache.js';
import { fetchManifest } from '#core/trust/fetch-manifest.js';
import type { Limits } from '#core/limits.js';
import type { Fetcher } from '#core/ports.js';
import { createUpdateLoop } from '#core/schedule/update-loop.js';
import {
  envelopeBytes,
  FakeTime,
  manifestOf,
  MemoryStore,
  ScriptedFetcher,
  testKey,
  text,
  type ScriptedResponse,
  type SeenRequest,
  httpContextOf,
} from '#test/fakes.js';
import { loopDeps } from '#test/update-loop-kit.js';

function ctx(handler: (req: SeenRequest) => ScriptedResponse, limits: Partial<Limits> = {}) {
  return httpOf(new ScriptedFetcher(handler), limits);
}

function httpOf<F extends Fetcher>(fetcher: F, limits: Partial<Limits> = {}) {
  return httpContextOf(fetcher, limits);
}

const signal = new AbortController().signal;
const decode = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

/** `bytes` cut into pieces of `size` (a coded answer arrives in arbitrary chunks). */
function pieces(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

const ANSWER = JSON.stringify({ ok: true, filler: 'x'.repeat(5000) });
const GZIP = { 'content-encoding': 'gzip' };
const MIB = 1024 * 1024;

class MemoryCache implements AnswerCache {
  kept: { resource: string; answer: CachedAnswer } | undefined;
  load(resource: string): Promise<CachedAnswer | undefined> {
    return Promise.resolve(this.kept?.resource === resource ? this.kept.answer : undefined);
  }
  save(resource: string, answer: CachedAnswer): Promise<void> {
    this.kept = { resource, answer };
    return Promise.resolve();
  }
}

describe('fetchManifest with a gzip-coded answer', () => {
  it('offers gzip and hands back the inflated bytes', async () => {
    const coded = gzipSync(ANSWER);
    const { http, fetcher } = ctx(() => ({ headers: GZIP, chunks: pieces(coded, 7) }));
    expect(decode(await fetchManifest(http, signal))).toBe(ANSWER);
    expect(fetcher.seen[0]?.headers['accept-encoding']).toBe('gzip');
  });

  it('takes x-gzip as gzip and an identity answer as before', async () => {
    const a = ctx(() => ({ headers: { 'content-encoding': 'X-Gzip' }, chunks: [gzipSync('{}')] }));
    expect(decode(await fetchManifest(a.http, signal))).toBe('{}');
    const b = ctx(() => ({ headers: { 'content-encoding': 'identity' }, chunks: [text('{}')] }));
    expect(decode(await fetchManifest(b.http, signal))).toBe('{}');
  });

  it('caps the inflated bytes, not the coded ones: a gzip bomb is MANIFEST_TOO_LARGE', async () => {
    // 64 MiB of zeros code to about 64 KiB: well under the cap on the wire, far over inflated.
    const bomb = gzipSync(new Uint8Array(64 * MIB), { level: 9 });
    expect(bomb.length).toBeLessThan(MIB);
    let pulled = 0;
    const chunks = pieces(bomb, 1024);
    // The fetcher pulls the body's chunks one at a time, through this iterator.
    const counted = Object.assign([...chunks], {
      *[Symbol.iterator](): Generator<Uint8Array> {
        for (const chunk of chunks) {
          pulled++;
          yield chunk;
        }
      },
    });
    const { http } = ctx(
      () => ({
        headers: { ...GZIP, 'content-length': String(bomb.length) },
        chunks: counted,
      }),
      { maxManifestBytes: MIB },
    );
    await expect(fetchManifest(http, signal)).rejects.toMatchObject({
      code: 'MANIFEST_TOO_LARGE',
    });
    // Stopped at the cap: the coded stream was read a buffer ahead (16 KiB), not to its end.
    expect(pulled).toBeLessThan(chunks.length / 2);
  });

  it('holds the inflated bytes, not the coded Content-Length, against the cap', async () => {
    const coded = gzipSync(ANSWER);
    const { http } = ctx(
      () => ({ headers: { ...GZIP, 'content-length': String(coded.length) }, chunks: [coded] }),
      { maxManifestBytes: ANSWER.length },
    );
    expect(decode(await fetchManifest(http, signal))).toBe(ANSWER);
    const over = ctx(() => ({ headers: GZIP, chunks: [coded] }), {
      maxManifestBytes: ANSWER.length - 1,
    });
    await expect(fetchManifest(over.http, signal)).rejects.toMatchObject({
      code: 'MANIFEST_TOO_LARGE',
    });
  });

  it('refuses a corrupt gzip stream (CONTENT_ENCODING)', async () => {
    const coded = Buffer.from(gzipSync(ANSWER));
    coded[20] = (coded[20] ?? 0) ^ 0xff;
    coded[21] = (coded[21] ?? 0) ^ 0xff;
    const { http } = ctx(() => ({ headers: GZIP, chunks: [coded] }));
    await expect(fetchManifest(http, signal)).rejects.toMatchObject({ code: 'CONTENT_ENCODING' });
  });

  it('refuses a truncated gzip stream (CONTENT_ENCODING)', async () => {
    const coded = gzipSync(ANSWER);
    const { http } = ctx(() => ({ headers: GZIP, chunks: [coded.subarray(0, coded.length - 9)] }));
    await expect(fetchManifest(http, signal)).rejects.toMatchObject({ code: 'CONTENT_ENCODING' });
  });

  it('refuses a coding it did not offer (CONTENT_ENCODING), reading no body', async () => {
    for (const coding of ['br', 'deflate', 'gzip, br', 'compress']) {
      const { http } = ctx(() => ({
        headers: { 'content-encoding': coding },
        chunks: [text('{}')],
      }));
      await expect(fetchManifest(http, signal)).rejects.toMatchObject({
        code: 'CONTENT_ENCODING',
      });
    }
  });

  it('refuses a gzip answer a fetcher handed over still coded (CONTENT_ENCODING)', async () => {
    // A Fetcher that ignores acceptGzip: the coded bytes must not reach verification.
    const raw: Fetcher = {
      get: () =>
        Promise.resolve({
          status: 200,
          header: (name: string) => (name === 'content-encoding' ? 'gzip' : undefined),
          body: Readable.from([gzipSync('{}')]),
          discard: () => undefined,
        }),
    };
    const { http } = httpOf(raw);
    await expect(fetchManifest(http, signal)).rejects.toMatchObject({ code: 'CONTENT_ENCODING' });
  });

  it('keeps the inflated bytes with the weak tag, sends that tag back and takes a 304', async () => {
    const cache = new MemoryCache();
    let round = 0;
    const { http, fetcher } = ctx(() =>
      round++ === 0
        ? { headers: { ...GZIP, etag: 'W/"t1"' }, chunks: [gzipSync(ANSWER)] }
        : { status: 304, headers: { etag: 'W/"t1"' } },
    );
    expect(decode(await fetchManifest(http, signal, cache))).toBe(ANSWER);
    expect(cache.kept?.answer.etag).toBe('W/"t1"');
    expect(decode(cache.kept?.answer.bytes ?? new Uint8Array())).toBe(ANSWER);
    expect(decode(await fetchManifest(http, signal, cache))).toBe(ANSWER);
    expect(fetcher.seen[1]?.headers['if-none-match']).toBe('W/"t1"');
    expect(fetcher.seen[1]?.headers['accept-encoding']).toBe('gzip');
  });
});

describe('an update over a gzip-coded answer', () => {
  it('verifies the inflated bytes and installs', async () => {
    const key = testKey();
    const files = [{ name: 'app.bin', content: text('app version one') }];
    const envelope = envelopeBytes(manifestOf('1.0.0', files), key);
    const fetcher = new ScriptedFetcher((req) =>
      req.url.endsWith('/api/updates/manifest')
        ? { headers: GZIP, chunks: pieces(gzipSync(envelope), 100) }
        : { chunks: [files[0]!.content] },
    );
    const time = new FakeTime();
    const updater = createUpdateLoop({
      ...loopDeps(fetcher, new MemoryStore(), key.hex),
      clock: time,
    });
    const result = await updater.update();
    expect(result.outcome).toBe('applied');
    // Artifacts never offer a coding: their bytes are hashed as sent.
    const artifact = fetcher.seen.find((r) => !r.url.endsWith('/api/updates/manifest'));
    expect(artifact?.headers['accept-encoding']).toBe('identity');
  });
});
