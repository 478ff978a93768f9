import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BuiltApp } from '#server/compose/app.js';
import { postJson } from '#test/post-json.js';
import { testApp } from '#test/server-harness.js';

let built: BuiltApp | undefined;
afterEach(async () => {
  await built?.app.close();
  built = undefined;
});

async function app(dev = false) {
  built = await testApp({ dev });
  return built.app;
}

describe('buildApp: the error policy (docs/PROTOCOL.md §1)', () => {
  it('answers an unknown route with 404 NOT_FOUND and the error body', async () => {
    const res = await (await app()).inject({ method: 'GET', url: '/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('application/json');
    expect(res.json()).toEqual({ ok: false, error: 'no such route', code: 'NOT_FOUND' });
  });

  it('answers a known path with the wrong method with 405 and an Allow header', async () => {
    const res = await (await app()).inject({ method: 'DELETE', url: '/api/updates/manifest' });
    expect(res.statusCode).toBe(405);
    expect(res.headers['allow']).toContain('GET');
    expect(res.json()).toMatchObject({ ok: false, code: 'METHOD_NOT_ALLOWED' });
  });

  it('answers 405 on a parametrised path too', async () => {
    const res = await (
      await app()
    ).inject({
      method: 'POST',
      url: `/api/updates/artifacts/${'a'.repeat(64)}`,
    });
    expect(res.statusCode).toBe(405);
  });

  it('refuses a body over 16 KiB with 413 BODY_TOO_LARGE', async () => {
    const res = await postJson(await app(), '/api/demo-key/mint', { label: 'x'.repeat(17 * 1024) });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ ok: false, code: 'BODY_TOO_LARGE' });
  });

  it('refuses text/plain with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await (
      await app()
    ).inject({
      method: 'POST',
      url: '/api/demo-key/mint',
      headers: { 'content-type': 'text/plain' },
      payload: 'active',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ ok: false, code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('refuses a form body on a JSON route with 415', async () => {
    const res = await (
      await app()
    ).inject({
      method: 'POST',
      url: '/api/demo-key/mint',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'subscription=active',
    });
    expect(res.statusCode).toBe(415);
  });

  it('refuses malformed JSON with 400 MALFORMED_JSON', async () => {
    const res = await postJson(await app(), '/api/demo-key/mint', '{"subscription": ');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ok: false, code: 'MALFORMED_JSON' });
  });

  it('answers an unexpected error with 500 INTERNAL and no stack', async () => {
    const a = await app();
    a.get('/boom', () => {
      throw new Error('secret detail at /home/x');
    });
    const res = await a.inject({ method: 'GET', url: '/boom' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ ok: false, error: 'internal error', code: 'INTERNAL' });
    expect(res.body).not.toContain('secret detail');
  });

  it('answers an undecodable URL with 400 BAD_URL and the error body', async () => {
    const res = await (await app()).inject({ method: 'GET', url: '/api/updates/%zz' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ok: false, code: 'BAD_URL' });
  });

  it('serves GET /healthz', async () => {
    const res = await (await app()).inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, status: 'up' });
  });
});

describe('buildApp: the dev API is off without --dev', () => {
  for (const [method, url] of [
    ['POST', '/api/dev/reset'],
    ['POST', '/api/dev/clock'],
    ['GET', '/api/dev/requests'],
    ['POST', '/api/dev/faults'],
    ['POST', '/api/dev/releases'],
    ['POST', '/api/dev/subscriptions'],
  ] as const) {
    it(`answers ${method} ${url} with 404 NOT_FOUND`, async () => {
      const res = await (await app(false)).inject({ method, url, payload: {} });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ ok: false, code: 'NOT_FOUND' });
    });
  }

  it('mounts them with --dev', async () => {
    const res = await postJson(await app(true), '/api/dev/reset');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
  });
});

describe('buildApp: data directory', () => {
  it('removes its temporary data directory on close', async () => {
    const b = await testApp();
    const dir = b.ctx.dataDir;
    expect(existsSync(dir)).toBe(true);
    await b.app.close();
    expect(existsSync(dir)).toBe(false);
  });

  it('refuses to build with a corrupt --node-key file, and says why', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'app-test-'));
    try {
      await writeFile(join(dir, 'bad.key'), 'not a key');
      await expect(testApp({ nodeKeyFile: join(dir, 'bad.key') })).rejects.toMatchObject({
        code: 'NODE_KEY_INVALID',
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
