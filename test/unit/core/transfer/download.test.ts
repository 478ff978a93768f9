import { describe, expect, it } from 'vitest';
import { downloadArtifact } from '#core/transfer/download.js';
import { parseEndpoint } from '#core/transfer/endpoint.js';
import type { HttpContext } from '#core/transfer/http-get.js';
import { DEFAULT_LIMITS } from '#core/limits.js';
import type { ManifestArtifact } from '#protocol/manifest.js';
import {
  FakeTime,
  MemoryStore,
  ScriptedFetcher,
  sha256Hex,
  text,
  type ScriptedResponse,
  type SeenRequest,
} from '#test/fakes.js';

const CONTENT = text('0123456789abcdefghij');
const ART: ManifestArtifact = {
  name: 'app.bin',
  size: CONTENT.length,
  sha256: sha256Hex(CONTENT),
  url: 'http://cdn.test/app.bin',
};
const signal = new AbortController().signal;

function setup(handler: (req: SeenRequest) => ScriptedResponse) {
  const fetcher = new ScriptedFetcher(handler);
  const time = new FakeTime();
  const http: HttpContext = {
    fetcher,
    clock: time,
    timers: time,
    limits: DEFAULT_LIMITS,
    endpoint: parseEndpoint('http://updates.test', 'mk'),
    userAgent: 'test',
  };
  const store = new MemoryStore();
  let network = 0;
  const run = () =>
    downloadArtifact(http, store, ART, new URL(ART.url), signal, {
      onHave: () => undefined,
      onNetworkBytes: (n) => {
        network += n;
      },
    });
  return { fetcher, store, run, network: () => network };
}

/** Serves CONTENT honouring Range (bytes=N-) and an ETag. */
function honest(req: SeenRequest): ScriptedResponse {
  const range = /^bytes=(\d+)-$/.exec(req.headers['range'] ?? '');
  if (range !== null) {
    const start = Number(range[1]);
    return {
      status: 206,
      headers: {
        etag: '"v1"',
        'content-range': `bytes ${start}-${CONTENT.length - 1}/${CONTENT.length}`,
      },
      chunks: [CONTENT.subarray(start)],
    };
  }
  return { headers: { etag: '"v1"', 'content-length': String(CONTENT.length) }, chunks: [CONTENT] };
}

describe('downloadArtifact', () => {
  it('streams an artifact into the blob store after checking its digest', async () => {
    const { store, run, fetcher } = setup(honest);
    await run();
    expect(store.blobs.get(ART.sha256)).toEqual(CONTENT);
    // Another origin than the base URL: the machine key is not sent.
    expect(fetcher.seen[0]?.headers['authorization']).toBeUndefined();
  });

  it('resumes a partial with Range and If-Range and fetches only the rest', async () => {
    const { store, run, fetcher, network } = setup(honest);
    store.partials.set(ART.sha256, { bytes: CONTENT.subarray(0, 8), validator: '"v1"' });
    await run();
    expect(fetcher.seen[0]?.headers['range']).toBe('bytes=8-');
    expect(fetcher.seen[0]?.headers['if-range']).toBe('"v1"');
    expect(network()).toBe(CONTENT.length - 8);
    expect(store.blobs.get(ART.sha256)).toEqual(CONTENT);
  });

  it('starts over when the server answers a Range request with 200', async () => {
    const { store, run } = setup(() => ({ chunks: [CONTENT] }));
    store.partials.set(ART.sha256, { bytes: text('stale-by'), validator: '"old"' });
    await run();
    expect(store.blobs.get(ART.sha256)).toEqual(CONTENT);
  });

  it('drops bad resumed bytes and fetches once more from byte 0', async () => {
    const { store, run, fetcher } = setup(honest);
    store.partials.set(ART.sha256, { bytes: text('XXXXXXXX'), validator: '"v1"' });
    await run();
    expect(fetcher.seen).toHaveLength(2);
    expect(fetcher.seen[1]?.headers['range']).toBeUndefined();
    expect(store.blobs.get(ART.sha256)).toEqual(CONTENT);
  });

  it('refuses a body longer than the signed size and keeps nothing (SIZE_MISMATCH)', async () => {
    const { store, run } = setup(() => ({ chunks: [CONTENT, text('more')] }));
    await expect(run()).rejects.toMatchObject({ code: 'SIZE_MISMATCH' });
    expect(store.blobs.size).toBe(0);
    expect(store.partials.get(ART.sha256)?.bytes.length ?? 0).toBe(0);
  });

  it('refuses a declared Content-Length other than the signed size (SIZE_MISMATCH)', async () => {
    const { run } = setup(() => ({ headers: { 'content-length': '999' }, chunks: [CONTENT] }));
    await expect(run()).rejects.toMatchObject({ code: 'SIZE_MISMATCH' });
  });

  it('refuses a body that ends short of the signed size (SIZE_MISMATCH)', async () => {
    const { run } = setup(() => ({ chunks: [CONTENT.subarray(0, 5)] }));
    await expect(run()).rejects.toMatchObject({ code: 'SIZE_MISMATCH' });
  });

  it('refuses bytes whose digest differs from the signed one (HASH_MISMATCH)', async () => {
    const { store, run } = setup(() => ({ chunks: [text('ZZZZZZZZZZZZZZZZZZZZ')] }));
    await expect(run()).rejects.toMatchObject({ code: 'HASH_MISMATCH' });
    expect(store.blobs.size).toBe(0);
  });

  it('names the artifact URL (without its signed query) in an HTTP_STATUS', async () => {
    const signed = { ...ART, url: 'http://cdn.test/app.bin?X-Amz-Signature=s3cret' };
    const fetcher = new ScriptedFetcher(() => ({ status: 404 }));
    const time = new FakeTime();
    const http: HttpContext = {
      fetcher,
      clock: time,
      timers: time,
      limits: DEFAULT_LIMITS,
      endpoint: parseEndpoint('http://updates.test', 'mk'),
      userAgent: 'test',
    };
    const hooks = { onHave: () => undefined, onNetworkBytes: () => undefined };
    const error = await downloadArtifact(
      http,
      new MemoryStore(),
      signed,
      new URL(signed.url),
      signal,
      hooks,
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'HTTP_STATUS',
      details: { url: 'http://cdn.test/app.bin', status: 404 },
    });
    expect(JSON.stringify(error)).not.toContain('s3cret');
  });

  it('keeps the received bytes when the connection drops (transient NETWORK)', async () => {
    const { store, run } = setup(() => ({
      chunks: [CONTENT.subarray(0, 6)],
      failAfter: new Error('ECONNRESET'),
    }));
    await expect(run()).rejects.toMatchObject({ code: 'NETWORK', transient: true });
    expect(store.partials.get(ART.sha256)?.bytes).toEqual(CONTENT.subarray(0, 6));
  });

  it('starts over when a 206 covers another range than asked', async () => {
    const { store, run } = setup(() => ({
      status: 206,
      headers: { 'content-range': `bytes 0-19/20` },
      chunks: [CONTENT],
    }));
    store.partials.set(ART.sha256, { bytes: CONTENT.subarray(0, 8), validator: undefined });
    await expect(run()).rejects.toMatchObject({ code: 'NETWORK', transient: true });
    expect(store.partials.get(ART.sha256)?.bytes.length).toBe(0);
  });

  it('refuses a 206 whose total differs from the signed size (SIZE_MISMATCH)', async () => {
    const { store, run } = setup(() => ({
      status: 206,
      headers: { 'content-range': `bytes 8-29/30` },
      chunks: [CONTENT],
    }));
    store.partials.set(ART.sha256, { bytes: CONTENT.subarray(0, 8), validator: undefined });
    await expect(run()).rejects.toMatchObject({ code: 'SIZE_MISMATCH' });
  });
});
