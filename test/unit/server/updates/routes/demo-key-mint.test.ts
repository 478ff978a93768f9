import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BuiltApp } from '#server/compose/app.js';
import { SUBSCRIPTION_MS } from '#server/updates/machine-keys.js';
import { testApp } from '#test/server-harness.js';
import { postJson } from '#test/post-json.js';

let built: BuiltApp;
afterEach(async () => {
  await built.app.close();
});

const T0 = Date.parse('2026-03-01T00:00:00.000Z');

async function mint(payload?: unknown, headers: Record<string, string> = {}) {
  return postJson(built.app, '/api/demo-key/mint', payload, headers);
}

describe('POST /api/demo-key/mint', () => {
  it('mints an active key of 256 bits with 30 days of the server clock', async () => {
    built = await testApp({}, { now: () => T0 });
    const res = await built.app.inject({ method: 'POST', url: '/api/demo-key/mint' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json<Record<string, unknown>>();
    expect(body['ok']).toBe(true);
    expect(body['machine_key']).toMatch(/^mk_[A-Za-z0-9_-]{43}$/);
    expect(body['machine_id']).toMatch(/^m_/);
    expect(body['subscription']).toEqual({
      status: 'active',
      expires_at: new Date(T0 + SUBSCRIPTION_MS).toISOString(),
    });
  });

  it('mints an inactive key with expires_at null', async () => {
    built = await testApp();
    const res = await mint({ subscription: 'inactive', label: 'ci runner' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ subscription: { status: 'inactive', expires_at: null } });
  });

  it('accepts an empty body sent as application/json', async () => {
    built = await testApp();
    const res = await mint(undefined, { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(200);
  });

  it('never stores the key itself, only its SHA-256 digest', async () => {
    built = await testApp();
    const key = (await mint()).json<{ machine_key: string }>().machine_key;
    // The snapshot and its journal (docs/SERVER.md §Data directory), wherever the record is.
    const read = (name: string) => readFile(join(built?.ctx.dataDir ?? '', name), 'utf8');
    const file = `${await read('machines.json').catch(() => '')}${await read('machines.journal')}`;
    const { createHash } = await import('node:crypto');
    expect(file).not.toContain(key);
    expect(file).toContain(createHash('sha256').update(key).digest('hex'));
  });

  it('gives two mints two different keys', async () => {
    built = await testApp();
    const a = (await mint()).json<{ machine_key: string }>().machine_key;
    const b = (await mint()).json<{ machine_key: string }>().machine_key;
    expect(a).not.toBe(b);
  });

  it('refuses an unknown subscription value with 400 INVALID_SUBSCRIPTION', async () => {
    built = await testApp();
    const res = await mint({ subscription: 'gold' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ok: false, code: 'INVALID_SUBSCRIPTION' });
  });

  it('refuses an unknown field with 400 UNKNOWN_FIELD', async () => {
    built = await testApp();
    const res = await mint({ plan: 'pro' });
    expect(res.json()).toMatchObject({ ok: false, code: 'UNKNOWN_FIELD' });
  });

  it('refuses a label with a newline with 400 INVALID_LABEL', async () => {
    built = await testApp();
    const res = await mint({ label: 'a\nb' });
    expect(res.json()).toMatchObject({ ok: false, code: 'INVALID_LABEL' });
  });

  it('refuses a null label with 400 INVALID_LABEL (null is not "absent")', async () => {
    built = await testApp();
    const res = await mint({ label: null });
    expect(res.json()).toMatchObject({ ok: false, code: 'INVALID_LABEL' });
  });

  it('refuses a null subscription with 400 INVALID_SUBSCRIPTION', async () => {
    built = await testApp();
    const res = await mint({ subscription: null });
    expect(res.json()).toMatchObject({ ok: false, code: 'INVALID_SUBSCRIPTION' });
  });

  it('refuses a label over 100 characters with 400 INVALID_LABEL', async () => {
    built = await testApp();
    const res = await mint({ label: 'x'.repeat(101) });
    expect(res.statusCode).toBe(400);
  });

  it('refuses a JSON array body with 400 INVALID_BODY', async () => {
    built = await testApp();
    const res = await mint([1]);
    expect(res.json()).toMatchObject({ ok: false, code: 'INVALID_BODY' });
  });
});
