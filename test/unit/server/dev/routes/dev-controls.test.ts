import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BuiltApp } from '#server/compose/app.js';
import { bearer, mintKey, testApp } from '#test/server-harness.js';
import { postJson } from '#test/post-json.js';

let built: BuiltApp;
beforeEach(async () => {
  built = await testApp({ dev: true });
});
afterEach(async () => {
  await built.app.close();
});

const post = (url: string, payload?: object) => postJson(built.app, url, payload);

describe('POST /api/dev/reset', () => {
  it('forgets machine keys and releases and returns to the initial release', async () => {
    const key = await mintKey(built.app);
    await built.modules.updates.api.publish({ registry_version: '1.0.0', artifacts: [] });
    expect((await post('/api/dev/reset')).statusCode).toBe(200);
    const res = await built.app.inject({
      method: 'GET',
      url: '/api/updates/manifest',
      headers: bearer(key),
    });
    expect(res.json()).toMatchObject({ code: 'INVALID_MACHINE_KEY' });
    expect(built.modules.updates.api.currentRelease()?.manifest.registry_version).toBe('0.0.0');
  });

  it('waits for a publish in flight, then returns to the initial release', async () => {
    const publishing = built.modules.updates.api.publish({
      registry_version: '5.0.0',
      artifacts: [{ name: 'big.bin', content: Buffer.alloc(2_000_000, 7) }],
    });
    const reset = await post('/api/dev/reset');
    expect(reset.statusCode).toBe(200);
    await expect(publishing).resolves.toMatchObject({ registry_version: '5.0.0' });
    expect(built.modules.updates.api.currentRelease()?.manifest.registry_version).toBe('0.0.0');
  });

  it('lets a publish racing a reset succeed, and serves every artifact of the release left', async () => {
    const resetting = post('/api/dev/reset');
    const publishing = built.modules.updates.api.publish({
      registry_version: '5.0.0',
      artifacts: [{ name: 'big.bin', content: Buffer.alloc(2_000_000, 9) }],
    });
    expect((await resetting).statusCode).toBe(200);
    await expect(publishing).resolves.toMatchObject({ registry_version: '5.0.0' });
    // Either order is fine (reset then publish, or publish then reset), never a mix of both.
    const key = await mintKey(built.app);
    const current = built.modules.updates.api.currentRelease();
    expect(current).toBeDefined();
    for (const a of current?.manifest.artifacts ?? []) {
      const res = await built.app.inject({
        method: 'GET',
        url: `/api/updates/artifacts/${a.sha256}`,
        headers: bearer(key),
      });
      expect(res.statusCode).toBe(200);
    }
  });

  it('puts the clock offset back to zero', async () => {
    await post('/api/dev/clock', { advance_ms: 5000 });
    await post('/api/dev/reset');
    expect(built.clock.offsetMs).toBe(0);
  });
});

describe('POST /api/dev/clock', () => {
  it('advances the server clock and reports it', async () => {
    const res = await post('/api/dev/clock', { advance_ms: 86_400_000 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, offset_ms: 86_400_000 });
  });

  it('refuses a negative advance with 400 INVALID_ADVANCE', async () => {
    const res = await post('/api/dev/clock', { advance_ms: -1 });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'INVALID_ADVANCE' });
  });

  it('refuses a string advance with 400 INVALID_ADVANCE', async () => {
    const res = await post('/api/dev/clock', { advance_ms: '5' });
    expect(res.json()).toMatchObject({ code: 'INVALID_ADVANCE' });
  });

  it('refuses an advance past the latest supported instant with 400 CLOCK_LIMIT, not a 5xx', async () => {
    // Ten years per call: a QA loop can push the clock past year 9999 (no longer RFC 3339)
    // and then past what Date can hold, where every time-stamping route failed with 500.
    let res = await post('/api/dev/clock', { advance_ms: 315_360_000_000 });
    for (let i = 0; i < 900 && res.statusCode === 200; i++) {
      res = await post('/api/dev/clock', { advance_ms: 315_360_000_000 });
    }
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ok: false, code: 'CLOCK_LIMIT' });
    expect((await built.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const publish = await post('/api/dev/releases', { registry_version: '1.0.0', artifacts: [] });
    expect(publish.statusCode).toBe(200);
  });
});

describe('GET /api/dev/requests', () => {
  it('records requests with the Authorization header redacted', async () => {
    const key = await mintKey(built.app);
    await built.app.inject({ method: 'GET', url: '/api/updates/manifest', headers: bearer(key) });
    const res = await built.app.inject({ method: 'GET', url: '/api/dev/requests' });
    const { requests } = res.json<{
      requests: { route: string; headers: object; status: number }[];
    }>();
    const hit = requests.find((r) => r.route === '/api/updates/manifest');
    expect(hit?.status).toBe(200);
    expect(hit?.headers).toMatchObject({ authorization: '[redacted]' });
    expect(res.body).not.toContain(key);
  });

  it('redacts secret query parameters', async () => {
    await built.app.inject({ method: 'GET', url: '/nope?token=abc&x=1' });
    const res = await built.app.inject({ method: 'GET', url: '/api/dev/requests' });
    expect(res.body).toContain('/nope?token=[redacted]&x=1');
    expect(res.body).not.toContain('abc');
  });

  it('refuses a non-numeric limit with 400 INVALID_QUERY', async () => {
    const res = await built.app.inject({ method: 'GET', url: '/api/dev/requests?limit=x' });
    expect(res.json()).toMatchObject({ code: 'INVALID_QUERY' });
  });
});

describe('POST /api/dev/faults', () => {
  it('answers the next matching request with the injected status and Retry-After, once', async () => {
    const armed = await post('/api/dev/faults', {
      route: 'GET /healthz',
      status: 503,
      retry_after_s: 7,
    });
    expect(armed.statusCode).toBe(200);
    const first = await built.app.inject({ method: 'GET', url: '/healthz' });
    expect(first.statusCode).toBe(503);
    expect(first.headers['retry-after']).toBe('7');
    expect(first.json()).toMatchObject({ ok: false, code: 'FAULT_INJECTED' });
    expect((await built.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('matches a route pattern with a parameter', async () => {
    await post('/api/dev/faults', { route: '/api/updates/artifacts/:sha256', status: 429 });
    const res = await built.app.inject({
      method: 'GET',
      url: `/api/updates/artifacts/${'a'.repeat(64)}`,
    });
    expect(res.statusCode).toBe(429);
  });

  it('does not fire for another method than the armed one', async () => {
    await post('/api/dev/faults', { route: 'POST /healthz', status: 500 });
    expect((await built.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('refuses a fault without an action with 400 INVALID_FAULT', async () => {
    const res = await post('/api/dev/faults', { route: 'GET /healthz' });
    expect(res.json()).toMatchObject({ code: 'INVALID_FAULT' });
  });

  it('refuses two actions at once with 400 INVALID_FAULT', async () => {
    const res = await post('/api/dev/faults', { route: '/healthz', status: 500, drop: true });
    expect(res.json()).toMatchObject({ code: 'INVALID_FAULT' });
  });

  it('refuses a status below 400 with 400 INVALID_FAULT', async () => {
    const res = await post('/api/dev/faults', { route: '/healthz', status: 200 });
    expect(res.statusCode).toBe(400);
  });

  it('refuses a route without a leading slash with 400 INVALID_FAULT', async () => {
    const res = await post('/api/dev/faults', { route: 'healthz', status: 500 });
    expect(res.json()).toMatchObject({ code: 'INVALID_FAULT' });
  });

  it('is cleared by reset', async () => {
    await post('/api/dev/faults', { route: '/healthz', status: 500 });
    await post('/api/dev/reset');
    expect((await built.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});
