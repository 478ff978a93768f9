/**
 * The fetch port's `acceptGzip` in both Node adapters (src/node/http/gzip-body.ts, http-fetcher.ts,
 * fetch-fetcher.ts; docs/PROTOCOL.md §2.7.6, Content coding), against a real server: gzip asked
 * for, inflated as it streams, wire bytes counted as sent; a stream that does not inflate is
 * CONTENT_ENCODING; an endless gzip bomb stops at the core's cap.
 */
import { Readable } from 'node:stream';
import { createGzip, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseEndpoint } from '#core/transfer/endpoint.js';
import { fetchManifest } from '#core/trust/fetch-manifest.js';
import { DEFAULT_LIMITS } from '#core/limits.js';
import type { Fetcher } from '#core/ports.js';
import { createFetchFetcher } from '#node/http/fetch-fetcher.js';
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
