/**
 * GET /api/updates/manifest?format=tuf (docs/PROTOCOL.md §TUF repository, One request): the
 * current timestamp, snapshot and targets files as their exact bytes, with the rules of the
 * manifest route (ETag and 304, gzip, nonce, format 1 fields while the gate allows them).
 */
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BuiltApp } from '#server/compose/app.js';
import { tuf } from '#protocol';
import { bearer, mintKey, testApp } from '#test/server-harness.js';

const T0 = Date.parse('2026-03-01T00:00:00.000Z');
const NONCE = 'abcdefghijklmnopqrstuv';
const URL = '/api/updates/manifest?format=tuf';

let built: BuiltApp;
let key: string;
beforeEach(async () => {
  built = await testApp({ dev: true }, { now: () => T0 });
  key = await mintKey(built.app);
});
afterEach(async () => {
  await built.app.close();
});

const request = (url = URL, headers: Record<string, string> = {}) =>
  built.app.inject({ method: 'GET', url, headers: { ...bearer(key), ...headers } });

interface Bundle {
  ok: boolean;
  format: string;
  root_version: number;
  payloadType?: string;
  metadata: Record<string, string>;
}
const members = (body: Bundle) =>
  new Map(Object.entries(body.metadata).map(([k, v]) => [k, Buffer.from(v, 'base64')]));

describe('GET /api/updates/manifest?format=tuf', () => {
  it('carries the exact bytes of timestamp, snapshot and targets the file routes serve', async () => {
    const res = await request();
    expect(res.statusCode).toBe(200);
    const body = res.json<Bundle>();
    expect(body).toMatchObject({ ok: true, format: 'tuf', root_version: 1 });
    // Format 1 rides at the top while the root never rotated (format-one-gate.ts).
    expect(body.payloadType).toBeDefined();
    const files = members(body);
    // The timestamp goes last: the bytes before it are the same for every nonce answer.
    expect([...files.keys()]).toEqual(['1.snapshot.json', '1.targets.json', 'timestamp.json']);
    for (const [name, bytes] of files) {
      const file = await request(`/api/updates/tuf/${name}`);
      expect(Buffer.compare(file.rawPayload, bytes), name).toBe(0);
    }
  });

  it('has an ETag and answers 304 to it; gzip when accepted, inflating to the same bytes', async () => {
    const plain = await request();
    const tag = plain.headers.etag as string;
    expect(tag).toMatch(/^"/);
    expect(plain.headers['cache-control']).toBe('no-store');
    expect((await request(URL, { 'if-none-match': tag })).statusCode).toBe(304);
    const coded = await request(URL, { 'accept-encoding': 'gzip' });
    expect(coded.headers['content-encoding']).toBe('gzip');
    expect(coded.headers.etag).toBe(`W/${tag}`);
    expect(Buffer.compare(gunzipSync(coded.rawPayload), plain.rawPayload)).toBe(0);
  });

  it('signs the timestamp for a nonce: same version, the nonce in signed, no ETag', async () => {
    const plain = members((await request()).json<Bundle>());
    const res = await request(`${URL}&nonce=${NONCE}`);
    expect(res.headers.etag).toBeUndefined();
    const files = members(res.json<Bundle>());
    const timestamp = tuf.parseEnvelope(files.get('timestamp.json')!, 'timestamp').signed;
    const before = tuf.parseEnvelope(plain.get('timestamp.json')!, 'timestamp').signed;
    expect(timestamp.nonce).toBe(NONCE);
    expect(timestamp.version).toBe(before.version);
    expect(timestamp.snapshotMeta).toEqual(before.snapshotMeta);
    expect(files.get('1.targets.json')).toEqual(plain.get('1.targets.json'));
    const coded = await request(`${URL}&nonce=${NONCE}`, { 'accept-encoding': 'gzip' });
    const inflated = JSON.parse(gunzipSync(coded.rawPayload).toString()) as Bundle;
    expect(members(inflated).get('1.snapshot.json')).toEqual(plain.get('1.snapshot.json'));
    expect(
      tuf.parseEnvelope(members(inflated).get('timestamp.json')!, 'timestamp').signed.nonce,
    ).toBe(NONCE);
    const single = await request(`/api/updates/tuf/timestamp.json?nonce=${NONCE}`);
    expect(tuf.parseEnvelope(single.rawPayload, 'timestamp').signed.nonce).toBe(NONCE);
    expect(single.headers['cache-control']).toBe('no-store');
  });

  it('refuses a bad nonce (400 INVALID_NONCE) and another format (400 BAD_REQUEST)', async () => {
    const bad = await request(`${URL}&nonce=short`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json<{ code: string }>().code).toBe('INVALID_NONCE');
    const ts = await request('/api/updates/tuf/timestamp.json?nonce=no%20spaces%20allowed!');
    expect(ts.json<{ code: string }>().code).toBe('INVALID_NONCE');
    const format = await request('/api/updates/manifest?format=2');
    expect(format.statusCode).toBe(400);
    expect(format.json<{ code: string }>().code).toBe('BAD_REQUEST');
  });

  it('asks for the machine key first (401)', async () => {
    const res = await built.app.inject({ method: 'GET', url: `${URL}&nonce=short` });
    expect(res.statusCode).toBe(401);
  });
});
