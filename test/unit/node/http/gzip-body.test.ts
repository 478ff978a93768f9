/**
 * The fetch port's `acceptGzip` in both Node adapters (src/node/http/gzip-body.ts, http-fetcher.ts,
 * fetch-fetcher.ts; docs/PROTOCOL.md §2.7.6, Content coding), against a real server: gzip asked
 * for, inflated as it streams, wire bytes counted as sent; a stream that does not inflate is
 * CONTENT_ENCODING; an endless gzip bomb stops at the core's cap. Then gunzipBody alone: a small
 * answer inflated in one call once its last coded byte is in, larger ones and bombs streamed.
 */
import { Readable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { createGzip, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseEndpoint } from '#core/transfer/endpoint.js';
import { fetchManifest } from '#core/trust/fetch-manifest.js';
import { DEFAULT_LIMITS } from '#core/limits.js';
import type { Fetcher } from '#core/ports.js';
import { createFetchFetcher } from '#node/http/fetch-fetcher.js';
import {
  gunzipBody,
  ONE_CALL_CODED_BYTES,
  ONE_CALL_INFLATED_BYTES,
  PROBE_CODED_BYTES,
} from '#node/http/gzip-body.js';
import { createHttpFetcher } from '#node/http/http-fetcher.js';
import { readAll, useLoopbackServer } from '#test/loopback-server.js';

const { serve } = useLoopbackServer();

const ANSWER = JSON.stringify({ ok: true, filler: 'abc'.repeat(4000) });
const CODED = gzipSync(ANSWER);
const signal = (): AbortSignal => new AbortController().signal;

const adapters: [string, Fetcher][] = [
  ['http fetcher', createHttpFetcher({ connectTimeoutMs: 2000 })],
  [
    'fetch fetcher',
    createFetchFetcher({ fetch: (url, init) => fetch(url, init), headersTimeoutMs: 2000 }),
  ],
];

describe.each(adapters)('%s with acceptGzip', (_name, fetcher) => {
  it('asks for gzip and hands back the inflated body', async () => {
    let asked: string | undefined;
    const base = await serve((req, res) => {
      asked = req.headers['accept-encoding'];
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': CODED.length });
      res.end(CODED);
    });
    const response = await fetcher.get(`${base}/m`, {
      headers: { 'accept-encoding': 'identity' },
      signal: signal(),
      acceptGzip: true,
    });
    expect(asked).toBe('gzip');
    expect(response.inflated).toBe(true);
    expect(await readAll(response.body)).toBe(ANSWER);
    // Where the adapter sees the wire, it counts the coded bytes, not the inflated ones.
    if (response.wireBytes !== undefined) expect(response.wireBytes()).toBe(CODED.length);
  });

  it('leaves an identity answer as it is', async () => {
    const base = await serve((_req, res) => res.end(ANSWER));
    const response = await fetcher.get(`${base}/m`, {
      headers: {},
      signal: signal(),
      acceptGzip: true,
    });
    expect(response.inflated).toBeUndefined();
    expect(await readAll(response.body)).toBe(ANSWER);
  });

  it('refuses a corrupt gzip stream (CONTENT_ENCODING)', async () => {
    const corrupt = Buffer.from(CODED);
    corrupt.fill(0x41, 12, 40);
    const base = await serve((_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end(corrupt);
    });
    const response = await fetcher.get(`${base}/m`, {
      headers: {},
      signal: signal(),
      acceptGzip: true,
    });
    await expect(readAll(response.body)).rejects.toMatchObject({ code: 'CONTENT_ENCODING' });
  });

  it('stops an endless gzip bomb at maxManifestBytes (MANIFEST_TOO_LARGE)', async () => {
    let closed = false;
    const base = await serve((_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      // Zeros without end, coded on the fly: about 1 KiB on the wire per MiB inflated.
      const zeros = new Readable({ read: () => void zeros.push(Buffer.alloc(1 << 20)) });
      zeros.pipe(createGzip({ level: 1 })).pipe(res);
      res.once('close', () => {
        closed = true;
        zeros.destroy();
      });
    });
    const http = {
      fetcher,
      clock: { nowMs: () => Date.now() },
      timers: {
        setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms),
        clearTimeout: (h: unknown) => clearTimeout(h as NodeJS.Timeout),
      },
      limits: { ...DEFAULT_LIMITS, maxManifestBytes: 4 << 20 },
      endpoint: parseEndpoint(`${base}/`, 'mk'),
      userAgent: 'test',
    };
    await expect(fetchManifest(http, signal())).rejects.toMatchObject({
      code: 'MANIFEST_TOO_LARGE',
    });
    // The connection was dropped: the server stops coding.
    await expect.poll(() => closed).toBe(true);
  });
});

/** A coded body handed over in `size`-byte chunks, telling how far it was read and if it was left. */
function source(coded: Uint8Array, size: number) {
  const seen = { pulled: 0, returned: false };
  let at = 0;
  const body: AsyncIterableIterator<Uint8Array> = {
    [Symbol.asyncIterator]: () => body,
    next: () => {
      if (at >= coded.length) return Promise.resolve({ value: undefined, done: true });
      const chunk = coded.subarray(at, at + size);
      at += size;
      seen.pulled += chunk.length;
      return Promise.resolve({ value: chunk, done: false });
    },
    return: () => {
      seen.returned = true;
      return Promise.resolve({ value: undefined, done: true });
    },
  };
  return { body, seen };
}

/** Every chunk gunzipBody yields, with the wire count at the time, read to the end. */
async function chunksOf(coded: Uint8Array, size: number) {
  const { body, seen } = source(coded, size);
  let wire = 0;
  const chunks: { length: number; wire: number; bytes: Buffer }[] = [];
  for await (const chunk of gunzipBody(body, 'http://x/m', (n) => (wire += n))) {
    chunks.push({ length: chunk.length, wire, bytes: Buffer.from(chunk) });
  }
  const inflated = Buffer.concat(chunks.map((c) => c.bytes));
  return { chunks: chunks.filter((c) => c.length > 0), all: chunks, inflated, wire, seen };
}

/** A JSON-like answer of about `bytes` bytes that codes three- to fourfold, as a manifest does. */
function manifestLike(bytes: number): Buffer {
  const entries: string[] = [];
  for (let i = 0; entries.join(',').length < bytes; i++) {
    const digest = randomBytes(32).toString('hex');
    entries.push(`{"name":"f${i}.bin","size":65536,"sha256":"${digest}","url":"blobs/${digest}"}`);
  }
  return Buffer.from(`{"artifacts":[${entries.join(',')}]}`);
}

/** 64 MiB of zeros, about 64 KiB coded: far past one call inflated, well under it coded. */
const BOMB = gzipSync(new Uint8Array(64 * 1024 * 1024), { level: 9 });

describe('gunzipBody', () => {
  it('inflates a small answer in one call once its last coded byte is in', async () => {
    const answer = manifestLike(256 * 1024);
    const coded = gzipSync(answer);
    expect(coded.length).toBeLessThan(ONE_CALL_CODED_BYTES);
    const { chunks, inflated, wire } = await chunksOf(coded, 16 * 1024);
    // One piece, not one per 16 KiB of output through the thread pool.
    expect(chunks).toHaveLength(1);
    expect(inflated.equals(answer)).toBe(true);
    expect(wire).toBe(coded.length);
  });

  it('tells the reader of every coded chunk while it holds them (the stall watch counts them)', async () => {
    const coded = gzipSync(manifestLike(64 * 1024));
    const { all } = await chunksOf(coded, 4096);
    const held = all.filter((c) => c.length === 0);
    expect(held).toHaveLength(Math.ceil(coded.length / 4096));
    // Each empty chunk comes after one more coded chunk was counted on the wire.
    expect(held.map((c) => c.wire)).toEqual(
      held.map((_, i) => Math.min((i + 1) * 4096, coded.length)),
    );
  });

  it('streams an answer that inflates past one call, whole and in order', async () => {
    const answer = Buffer.alloc(ONE_CALL_INFLATED_BYTES + 12345, 0x20);
    answer.write('{"a":1}', 0);
    const coded = gzipSync(answer);
    const { chunks, inflated } = await chunksOf(coded, 8 * 1024);
    expect(inflated.equals(answer)).toBe(true);
    expect(chunks.length).toBeGreaterThan(1);
  });

  it('streams an answer whose coded bytes pass what one call holds', async () => {
    const answer = randomBytes(ONE_CALL_CODED_BYTES + 5000);
    const coded = gzipSync(answer);
    const { inflated, wire } = await chunksOf(coded, 64 * 1024);
    expect(inflated.equals(answer)).toBe(true);
    expect(wire).toBe(coded.length);
  });

  it('refuses a corrupt or a truncated small answer (CONTENT_ENCODING)', async () => {
    const coded = gzipSync(manifestLike(20 * 1024));
    const corrupt = Buffer.from(coded);
    corrupt.fill(0x41, 12, 40);
    await expect(chunksOf(corrupt, 4096)).rejects.toMatchObject({ code: 'CONTENT_ENCODING' });
    const truncated = coded.subarray(0, coded.length - 10);
    await expect(chunksOf(truncated, 4096)).rejects.toMatchObject({ code: 'CONTENT_ENCODING' });
  });

  it('streams a bomb from its first bytes: read no further than the reader takes', async () => {
    const coded = BOMB;
    const { body, seen } = source(coded, 1024);
    let inflated = 0;
    for await (const chunk of gunzipBody(body, 'http://x/m', () => undefined)) {
      inflated += chunk.length;
      if (inflated > 1024 * 1024) break;
    }
    // The probe at PROBE_CODED_BYTES saw the ratio; the stream then stopped with the reader.
    expect(seen.pulled).toBeLessThanOrEqual(PROBE_CODED_BYTES + 16 * 1024);
    expect(seen.returned).toBe(true);
  });

  it('bounds a bomb behind a plain prefix: held coded bytes, then the stream and the cap', async () => {
    const prefix = gzipSync(manifestLike(PROBE_CODED_BYTES * 4), { level: 1 });
    // Two gzip members, one after the other: the second inflates past one call.
    const coded = Buffer.concat([prefix, BOMB]);
    expect(coded.length).toBeLessThan(ONE_CALL_CODED_BYTES);
    const { body, seen } = source(coded, 4096);
    let inflated = 0;
    for await (const chunk of gunzipBody(body, 'http://x/m', () => undefined)) {
      inflated += chunk.length;
      if (inflated > 8 * 1024 * 1024) break;
    }
    expect(inflated).toBeLessThan(8 * 1024 * 1024 + 128 * 1024);
    expect(seen.pulled).toBeLessThanOrEqual(coded.length);
    expect(seen.returned).toBe(true);
  });
});
