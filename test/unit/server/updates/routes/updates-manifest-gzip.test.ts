/**
 * The gzip-coded manifest answer (docs/PROTOCOL.md §2.7.6, Content coding): negotiated from
 * Accept-Encoding (q=0, *), a weak ETag on the gzip form matching either form, Vary on every
 * answer, HEAD and 304 with the same headers, a nonce answer coded too, and the bytes that
 * inflate exactly to the identity answer.
 */
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BuiltApp } from '#server/compose/app.js';
import { GzipFrame } from '#server/updates/gzip-frame.js';
import { checkAnswer } from '#test/answer-check.js';
import { appWithKey, bearer } from '#test/server-harness.js';

const T0 = Date.parse('2026-03-01T00:00:00.000Z');
const NONCE = 'abcdefghijklmnopqrstuv';

let built: BuiltApp;
let key: string;
beforeEach(async () => {
  ({ built, key } = await appWithKey({ dev: true }, { now: () => T0 }));
});
afterEach(async () => {
  await built.app.close();
});

const request = (
  headers: Record<string, string> = {},
  { url = '/api/updates/manifest', method = 'GET' } = {},
) => built.app.inject({ method, url, headers: { ...bearer(key), ...headers } });
const GZIP = { 'accept-encoding': 'gzip' };

describe('GET /api/updates/manifest: content coding', () => {
  it('sends gzip to a request that accepts it, inflating to the identity bytes', async () => {
    const plain = await request();
    const coded = await request({ 'accept-encoding': 'br;q=1, gzip;q=0.8' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(coded.headers['content-encoding']).toBe('gzip');
    expect(coded.headers['content-type']).toContain('application/json');
    expect(Number(coded.headers['content-length'])).toBe(coded.rawPayload.length);
    expect(coded.rawPayload.length).toBeLessThan(plain.rawPayload.length);
    const inflated = gunzipSync(coded.rawPayload);
    expect(Buffer.compare(inflated, plain.rawPayload)).toBe(0);
    checkAnswer(inflated, built.modules.updates.api.nodePubkey, T0);
  });

  it('sends identity when gzip is refused with q=0, or not offered', async () => {
    for (const header of ['gzip;q=0', '*;q=0', 'identity', 'br', '*, gzip;q=0']) {
      const res = await request({ 'accept-encoding': header });
      expect(res.headers['content-encoding'], header).toBeUndefined();
      checkAnswer(res.rawPayload, built.modules.updates.api.nodePubkey, T0);
    }
    expect((await request({ 'accept-encoding': '*' })).headers['content-encoding']).toBe('gzip');
  });

  it('says Vary: Accept-Encoding on both forms and on a 304', async () => {
    const plain = await request();
    const coded = await request(GZIP);
    expect(plain.headers.vary).toBe('accept-encoding');
    expect(coded.headers.vary).toBe('accept-encoding');
    const again = await request({ ...GZIP, 'if-none-match': String(coded.headers.etag) });
    expect(again.headers.vary).toBe('accept-encoding');
  });

  it('tags the gzip form with the identity tag made weak; either tag gets a 304 in either form', async () => {
    const strong = String((await request()).headers.etag);
    const weak = String((await request(GZIP)).headers.etag);
    expect(weak).toBe(`W/${strong}`);
    for (const tag of [strong, weak]) {
      const identity = await request({ 'if-none-match': tag });
      expect(identity.statusCode).toBe(304);
      expect(identity.headers.etag).toBe(strong);
      const gzip = await request({ ...GZIP, 'if-none-match': tag });
      expect(gzip.statusCode).toBe(304);
      expect(gzip.headers.etag).toBe(weak);
      expect(gzip.headers['content-encoding']).toBeUndefined();
      expect(gzip.rawPayload.length).toBe(0);
    }
  });

  it('answers HEAD with the headers of the GET and no body', async () => {
    const get = await request(GZIP);
    const head = await request(GZIP, { method: 'HEAD' });
    expect(head.statusCode).toBe(200);
    expect(head.rawPayload.length).toBe(0);
    for (const name of ['content-encoding', 'etag', 'vary', 'content-length', 'content-type']) {
      expect(head.headers[name], name).toBe(get.headers[name]);
    }
  });

  it('codes a nonce answer too (no tag), bound to its nonce', async () => {
    const url = `/api/updates/manifest?nonce=${NONCE}`;
    const res = await request(GZIP, { url });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers.etag).toBeUndefined();
    const answer = checkAnswer(
      gunzipSync(res.rawPayload),
      built.modules.updates.api.nodePubkey,
      T0,
    );
    expect(answer.freshness.nonce).toBe(NONCE);
  });

  it('codes an answer once, not per request, and again once freshness is re-signed', async () => {
    const code = vi.spyOn(GzipFrame.prototype, 'code');
    try {
      const first = await request(GZIP);
      const second = await request(GZIP);
      expect(Buffer.compare(first.rawPayload, second.rawPayload)).toBe(0);
      expect(code).toHaveBeenCalledTimes(1);
      await built.app.inject({
        method: 'POST',
        url: '/api/dev/clock',
        payload: { advance_ms: 12 * 3_600_000 },
      });
      expect((await request(GZIP)).headers.etag).not.toBe(first.headers.etag);
      expect(code).toHaveBeenCalledTimes(2);
    } finally {
      code.mockRestore();
    }
  });
});
