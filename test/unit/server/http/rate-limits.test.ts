/**
 * Rate limits per client address (docs/SERVER.md §Rate limits): mint counts every request,
 * the credential-checking routes count only their failures; past the quota 429 RATE_LIMITED
 * with Retry-After; another address is not affected; 0 turns them off; the counters show in
 * the dev request log.
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { BuiltApp } from '#server/compose/app.js';
import { Suspects } from '#server/http/rate-limits.js';
import { bearer, mintKey, testApp } from '#test/server-harness.js';
import { postJson } from '#test/post-json.js';

let built: BuiltApp | undefined;
afterEach(async () => {
  await built?.app.close();
  built = undefined;
});

const manifest = (app: FastifyInstance, key: string, remoteAddress = '127.0.0.1') =>
  app.inject({ method: 'GET', url: '/api/updates/manifest', headers: bearer(key), remoteAddress });

const token = (app: FastifyInstance) =>
  app.inject({
    method: 'POST',
    url: '/api/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'grant_type=authorization_code&code=nope&client_id=qa-web&client_secret=wrong',
  });

describe('rate limits (docs/SERVER.md §Rate limits)', () => {
  it('answers the mint past the quota 429 RATE_LIMITED with Retry-After', async () => {
    built = await testApp({ rateLimitPerMinute: 3 });
    for (let i = 0; i < 3; i += 1) {
      expect((await postJson(built.app, '/api/demo-key/mint')).statusCode).toBe(200);
    }
    const res = await postJson(built.app, '/api/demo-key/mint');
    expect(res.statusCode).toBe(429);
    expect(res.json()).toMatchObject({ ok: false, code: 'RATE_LIMITED' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('counts only failed machine keys, per address', async () => {
    built = await testApp({ rateLimitPerMinute: 3 });
    const good = await mintKey(built.app);
    for (let i = 0; i < 10; i += 1)
      expect((await manifest(built.app, good)).statusCode).not.toBe(429);
    const bad = 'mk_' + 'A'.repeat(43);
    for (let i = 0; i < 3; i += 1) expect((await manifest(built.app, bad)).statusCode).toBe(401);
    const limited = await manifest(built.app, bad);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ code: 'RATE_LIMITED' });
    expect(limited.headers['x-content-type-options']).toBe('nosniff');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The same address is refused even with a good key until the window ends ...
    expect((await manifest(built.app, good)).statusCode).toBe(429);
    // ... while another address is not affected.
    expect((await manifest(built.app, bad, '127.0.0.9')).statusCode).toBe(401);
  });

  it('counts token failures', async () => {
    built = await testApp({ rateLimitPerMinute: 2 });
    expect((await token(built.app)).statusCode).toBeGreaterThanOrEqual(400);
    expect((await token(built.app)).statusCode).toBeGreaterThanOrEqual(400);
    const res = await token(built.app);
    expect(res.statusCode).toBe(429);
    expect(res.json()).toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('is off with 0', async () => {
    built = await testApp({ rateLimitPerMinute: 0 });
    for (let i = 0; i < 20; i += 1) {
      expect((await postJson(built.app, '/api/demo-key/mint')).statusCode).toBe(200);
    }
  });

  it('shows its counters beside the dev request log', async () => {
    built = await testApp({ rateLimitPerMinute: 1, dev: true });
    await postJson(built.app, '/api/demo-key/mint');
    await postJson(built.app, '/api/demo-key/mint');
    await token(built.app);
    const res = await built.app.inject({ method: 'GET', url: '/api/dev/requests' });
    expect(res.json()).toMatchObject({
      counters: {
        rate_limits: {
          limited_every: 1,
          limited_failures: 0,
          failures_counted: 1,
          limited_early: 0,
        },
      },
    });
    expect(res.json<{ requests: { status: number }[] }>().requests.map((r) => r.status)).toContain(
      429,
    );
  });

  it('is cleared by the dev reset: every address starts with its whole quota again', async () => {
    built = await testApp({ rateLimitPerMinute: 2, dev: true });
    const bad = 'mk_' + 'A'.repeat(43);
    for (let i = 0; i < 2; i += 1) {
      expect((await postJson(built.app, '/api/demo-key/mint')).statusCode).toBe(200);
      expect((await manifest(built.app, bad)).statusCode).toBe(401);
    }
    expect((await postJson(built.app, '/api/demo-key/mint')).statusCode).toBe(429);
    expect((await manifest(built.app, bad)).statusCode).toBe(429);
    expect((await postJson(built.app, '/api/dev/reset')).statusCode).toBe(200);
    const counters = await built.app.inject({ method: 'GET', url: '/api/dev/requests' });
    expect(counters.json()).toMatchObject({
      counters: { rate_limits: { limited_every: 0, limited_failures: 0, failures_counted: 0 } },
    });
    for (let i = 0; i < 2; i += 1) {
      expect((await postJson(built.app, '/api/demo-key/mint')).statusCode).toBe(200);
      expect((await manifest(built.app, bad)).statusCode).toBe(401);
    }
    // The quota is whole again, and counted again from there.
    expect((await postJson(built.app, '/api/demo-key/mint')).statusCode).toBe(429);
    expect((await manifest(built.app, bad)).statusCode).toBe(429);
  });

  it('peeks only for addresses with a failure counted, and for every one past its bound', () => {
    const suspects = new Suspects();
    expect(suspects.has('127.0.0.1')).toBe(false);
    suspects.add('127.0.0.2');
    expect(suspects.has('127.0.0.2')).toBe(true);
    expect(suspects.has('127.0.0.1')).toBe(false);
    for (let i = 0; i < Suspects.MAX; i += 1) suspects.add(`10.0.${i >> 8}.${i & 255}`);
    // Past the bound nobody skips the peek: fail closed.
    expect(suspects.has('127.0.0.1')).toBe(true);
    suspects.clear();
    expect(suspects.has('127.0.0.2')).toBe(false);
  });
});
