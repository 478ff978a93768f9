import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BuiltApp } from '#server/compose/app.js';
import { SUBSCRIPTION_MS } from '#server/updates/machine-keys.js';
import { verifyEd25519 } from '#protocol/ed25519.js';
import { pae, parseEnvelope } from '#protocol/envelope.js';
import { parsePubkeyHex } from '#protocol/keys.js';
import { parseManifest } from '#protocol/manifest.js';
import { bearer, mintKey, testApp } from '#test/server-harness.js';
import { postJson } from '#test/post-json.js';

let built: BuiltApp;
// A frozen base clock: only the dev advance moves time, so expiry is exact.
const T0 = Date.parse('2026-03-01T00:00:00.000Z');
beforeEach(async () => {
  built = await testApp({ dev: true }, { now: () => T0 });
});
afterEach(async () => {
  await built.app.close();
});

const get = (headers: Record<string, string> = {}) =>
  built.app.inject({ method: 'GET', url: '/api/updates/manifest', headers });

async function expect401(headers: Record<string, string>, code: string): Promise<void> {
  const res = await get(headers);
  expect(res.statusCode).toBe(401);
  expect(res.headers['www-authenticate']).toContain('Bearer');
  expect(res.json()).toMatchObject({ ok: false, code });
}

describe('GET /api/updates/manifest', () => {
  it('serves the signed envelope with Cache-Control no-store', async () => {
    const res = await get(bearer(await mintKey(built.app)));
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-type']).toContain('application/json');
    const env = parseEnvelope(res.rawPayload);
    const key = parsePubkeyHex(built.modules.updates.api.nodePubkey);
    const sig = env.signatures[0]?.sig ?? new Uint8Array();
    expect(verifyEd25519(sig, pae(env.payloadType, env.payload), key)).toBe(true);
    expect(parseManifest(env.payload).registry_version).toBe('0.0.0');
  });

  it('serves the stored release and format 1 envelopes exactly, not re-encoded', async () => {
    await built.modules.updates.api.publish({
      registry_version: '1.0.0',
      artifacts: [{ name: 'a.txt', content: new TextEncoder().encode('a') }],
    });
    const res = await get(bearer(await mintKey(built.app)));
    const answer = JSON.parse(res.body) as Record<string, unknown>;
    const read = async (dir: string) =>
      JSON.parse(await readFile(join(built.ctx.dataDir, dir, '1.0.0.json'), 'utf8')) as Record<
        string,
        unknown
      >;
    expect(answer['release']).toEqual(await read('releases'));
    const legacy = await read('legacy');
    for (const field of ['payloadType', 'payload', 'signatures']) {
      expect(answer[field]).toEqual(legacy[field]);
    }
  });

  it('accepts the scheme name in lowercase (RFC 9110 §11.1)', async () => {
    const key = await mintKey(built.app);
    expect((await get({ authorization: `bearer ${key}` })).statusCode).toBe(200);
  });

  it('refuses a request without Authorization with MISSING_MACHINE_KEY', async () => {
    await expect401({}, 'MISSING_MACHINE_KEY');
  });

  it('refuses an empty Authorization header with MISSING_MACHINE_KEY', async () => {
    await expect401({ authorization: '' }, 'MISSING_MACHINE_KEY');
  });

  it('refuses the Basic scheme with INVALID_MACHINE_KEY', async () => {
    await expect401({ authorization: `Basic ${await mintKey(built.app)}` }, 'INVALID_MACHINE_KEY');
  });

  it('refuses "Bearer" with two spaces with INVALID_MACHINE_KEY', async () => {
    await expect401(
      { authorization: `Bearer  ${await mintKey(built.app)}` },
      'INVALID_MACHINE_KEY',
    );
  });

  it('refuses a trailing space with INVALID_MACHINE_KEY', async () => {
    await expect401(
      { authorization: `Bearer ${await mintKey(built.app)} ` },
      'INVALID_MACHINE_KEY',
    );
  });

  it('refuses "Bearer" without a token with INVALID_MACHINE_KEY', async () => {
    await expect401({ authorization: 'Bearer' }, 'INVALID_MACHINE_KEY');
  });

  it('refuses a well-formed but unknown key with INVALID_MACHINE_KEY', async () => {
    await expect401(bearer(`mk_${'A'.repeat(43)}`), 'INVALID_MACHINE_KEY');
  });

  it('refuses a key that lost one character with INVALID_MACHINE_KEY', async () => {
    const key = await mintKey(built.app);
    await expect401(bearer(key.slice(0, -1)), 'INVALID_MACHINE_KEY');
  });

  it('refuses an inactive subscription with SUBSCRIPTION_INACTIVE', async () => {
    await expect401(bearer(await mintKey(built.app, 'inactive')), 'SUBSCRIPTION_INACTIVE');
  });

  it('refuses a subscription once 30 days of server clock have passed', async () => {
    const key = await mintKey(built.app);
    built.clock.advance(SUBSCRIPTION_MS - 1);
    expect((await get(bearer(key))).statusCode).toBe(200);
    built.clock.advance(1);
    await expect401(bearer(key), 'SUBSCRIPTION_INACTIVE');
  });

  it('refuses a key whose subscription was switched off through the dev API', async () => {
    const res = await built.app.inject({ method: 'POST', url: '/api/demo-key/mint' });
    const { machine_key, machine_id } = res.json<{ machine_key: string; machine_id: string }>();
    const flip = await postJson(built.app, '/api/dev/subscriptions', {
      machine_id,
      status: 'inactive',
    });
    expect(flip.statusCode).toBe(200);
    await expect401(bearer(machine_key), 'SUBSCRIPTION_INACTIVE');
  });
});
