/**
 * GET /api/chain/active and the chain dev API on a real port through startServer({ dev: true }),
 * with the clock moved by POST /api/dev/clock (no real-time sleeping).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityResponse } from '#protocol/activity.js';
import { unitStartMs } from '#server/chain/time-units.js';
import { startServer, type RunningServer } from '#server/compose/start-server.js';
import { postJsonTo } from '#test/post-json.js';

// Start exactly at the first millisecond of a unit, so 1 ms later is still the same unit.
const START_MS = Math.ceil(unitStartMs(2_300_000_000));

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ dev: true, simulate: false, seed: 1 }, { now: () => START_MS });
});
afterAll(async () => {
  await server.close();
});

const post = (path: string, body: unknown) => postJsonTo(`${server.url}${path}`, body);

async function active(query = ''): Promise<{ res: Response; body: ActivityResponse }> {
  const res = await fetch(`${server.url}/api/chain/active${query}`);
  return { res, body: (await res.json()) as ActivityResponse };
}

describe('chain activity through the real server', () => {
  it('ranks machines injected by the dev API once the clock moves past their unit', async () => {
    await post('/api/dev/reset', {});
    expect(
      (await post('/api/dev/machines', { id: 'alpha', name: 'Alpha', visibility: 'public' }))
        .status,
    ).toBe(201);
    expect(
      (await post('/api/dev/machines', { id: 'hidden', name: 'Hidden', visibility: 'private' }))
        .status,
    ).toBe(201);
    expect((await post('/api/dev/transitions', { machine_id: 'alpha', count: 7 })).status).toBe(
      200,
    );
    expect((await post('/api/dev/transitions', { machine_id: 'hidden', count: 70 })).status).toBe(
      200,
    );
    expect((await active()).body.machines).toEqual([]);

    expect((await post('/api/dev/clock', { advance_ms: 784 })).status).toBe(200);
    const { res, body } = await active('?limit=5&window=1');
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(body).toMatchObject({
      ok: true,
      window: 1,
      limit: 5,
      as_of_unit: server.chain.unitNow() - 1,
    });
    expect(body.machines).toEqual([{ rank: 1, id: 'alpha', name: 'Alpha', transitions: 7 }]);
  });

  it('answers 200 with defaults for unparsable parameters', async () => {
    const { res, body } = await active('?limit=abc&window=-1&limit=2');
    expect(res.status).toBe(200);
    expect([body.window, body.limit]).toEqual([60, 10]);
  });

  it('answers the CORS preflight and HEAD', async () => {
    const preflight = await fetch(`${server.url}/api/chain/active`, {
      method: 'OPTIONS',
      headers: { origin: 'https://example.org', 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    const head = await fetch(`${server.url}/api/chain/active`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('access-control-allow-origin')).toBe('*');
    expect(await head.text()).toBe('');
  });

  it('refuses malformed JSON on the dev API with the error body', async () => {
    const { status, json } = await post('/api/dev/transitions', '{"machine_id":');
    expect(status).toBe(400);
    expect(json['ok']).toBe(false);
    expect(typeof json['code']).toBe('string');
  });

  it('refuses transitions to an unknown machine with 404 UNKNOWN_MACHINE', async () => {
    const { status, json } = await post('/api/dev/transitions', { machine_id: 'nobody', count: 1 });
    expect(status).toBe(404);
    expect(json).toMatchObject({ ok: false, code: 'UNKNOWN_MACHINE' });
  });

  it('POST /api/dev/reset clears the chain', async () => {
    await post('/api/dev/machines', { id: 'beta', name: 'Beta', visibility: 'public' });
    await post('/api/dev/transitions', {
      machine_id: 'beta',
      count: 1,
      unit: server.chain.unitNow() - 1,
    });
    expect((await active()).body.machines.length).toBeGreaterThan(0);
    await post('/api/dev/reset', {});
    expect((await active()).body.machines).toEqual([]);
  });
});
