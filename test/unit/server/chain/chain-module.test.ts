import { afterEach, describe, expect, it } from 'vitest';
import type { ActivityResponse } from '#protocol/activity.js';
import { unitStartMs } from '#server/chain/time-units.js';
import { chainHarness, type ChainHarness } from '#test/chain-context.js';
import { postJson } from '#test/post-json.js';

let h: ChainHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Moves the harness clock to the first millisecond of the next unit. */
function nextUnit(harness: ChainHarness): void {
  const now = harness.clock.now();
  const target = Math.ceil(unitStartMs(harness.api.unitNow() + 1));
  harness.clock.advance(target - now);
}

async function getActive(harness: ChainHarness, query = '') {
  const res = await harness.app.inject({ method: 'GET', url: `/api/chain/active${query}` });
  return { res, body: res.json<ActivityResponse>() };
}

describe('GET /api/chain/active (docs/INTERFACE.md §4.4, docs/PROTOCOL.md §5)', () => {
  it('answers 200 JSON with CORS open to any origin', async () => {
    h = await chainHarness();
    const { res, body } = await getActive(h);
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-length']).toBe(String(res.rawPayload.length));
    expect(body).toMatchObject({ ok: true, window: 60, limit: 10, machines: [] });
  });

  it('answers HEAD with the same headers and no body', async () => {
    h = await chainHarness();
    const get = await h.app.inject({ method: 'GET', url: '/api/chain/active' });
    const head = await h.app.inject({ method: 'HEAD', url: '/api/chain/active' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(head.headers['access-control-allow-origin']).toBe('*');
  });

  it('answers a CORS preflight with 204 and the allowed methods', async () => {
    h = await chainHarness();
    const res = await h.app.inject({
      method: 'OPTIONS',
      url: '/api/chain/active',
      headers: { origin: 'https://example.org', 'access-control-request-method': 'GET' },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-methods']).toContain('GET');
  });

  it('clamps and defaults the query, and still answers 200', async () => {
    h = await chainHarness();
    const cases: [string, number, number][] = [
      ['?limit=0&window=0', 1, 1],
      ['?limit=500&window=99999', 3600, 100],
      ['?limit=-3&window=abc', 60, 10],
      ['?limit=&window=', 60, 10],
      ['?limit=5&limit=6&window=7&window=8', 60, 10],
      ['?limit[]=5', 60, 10],
      ['?limit=99999999999999999999999', 60, 10],
    ];
    for (const [query, window, limit] of cases) {
      const { res, body } = await getActive(h, query);
      expect(res.statusCode, query).toBe(200);
      expect([body.window, body.limit], query).toEqual([window, limit]);
    }
  });

  it('ranks injected machines once their unit completes, without private ones', async () => {
    h = await chainHarness();
    h.api.addMachine({ id: 'a', name: 'Alpha', visibility: 'public' });
    h.api.addMachine({ id: 'b', name: 'Beta', visibility: 'public' });
    h.api.addMachine({ id: 'p', name: 'Private', visibility: 'private' });
    h.api.addTransitions({ machine_id: 'a', count: 2 });
    h.api.addTransitions({ machine_id: 'b', count: 5 });
    h.api.addTransitions({ machine_id: 'p', count: 50 });
    expect((await getActive(h)).body.machines).toEqual([]);
    nextUnit(h);
    const { body } = await getActive(h);
    expect(body.as_of_unit).toBe(h.api.unitNow() - 1);
    expect(body.machines).toEqual([
      { rank: 1, id: 'b', name: 'Beta', transitions: 5 },
      { rank: 2, id: 'a', name: 'Alpha', transitions: 2 },
    ]);
  });

  it("series=1 adds each machine's series over the window (docs/PROTOCOL.md §5), through the route and the raw fast path", async () => {
    h = await chainHarness();
    h.api.addMachine({ id: 'a', name: 'Alpha', visibility: 'public' });
    h.api.addTransitions({ machine_id: 'a', count: 4, unit: h.api.unitNow() - 3 });
    h.api.addTransitions({ machine_id: 'a', count: 2 });
    nextUnit(h);
    const { body } = await getActive(h, '?window=120&series=1');
    const series = body.machines[0]?.series ?? [];
    expect(series).toHaveLength(60); // 120 units in 60 buckets of 2
    expect(series.reduce((a, b) => a + b, 0)).toBe(6);
    expect(series.slice(-2)).toEqual([4, 2]);
    expect((await getActive(h, '?series=true')).body.machines[0]).not.toHaveProperty('series');
    expect((await getActive(h)).body.machines[0]).not.toHaveProperty('series');
    // The raw fast path (server/src/http/raw-first-server.ts) answers the same bytes.
    const raw = h.module.handleRaw;
    expect(raw).toBeTypeOf('function');
    let written: Buffer | undefined;
    const response = {
      writeHead: () => response,
      end: (bytes: Buffer) => {
        written = bytes;
      },
    };
    const taken = raw?.(
      { method: 'GET', url: '/api/chain/active?window=120&series=1' } as never,
      response as never,
    );
    expect(taken).toBe(true);
    expect(JSON.parse(String(written)) as unknown).toEqual(body);
  });

  it('serves the same bytes within a unit and new bytes at the next unit', async () => {
    h = await chainHarness();
    h.api.addMachine({ id: 'a', name: 'Alpha', visibility: 'public' });
    nextUnit(h);
    h.api.addTransitions({ machine_id: 'a', count: 1 });
    const first = (await getActive(h)).res.body;
    h.clock.advance(700); // still inside the same 783.33 ms unit
    h.api.addTransitions({ machine_id: 'a', count: 1 });
    expect((await getActive(h)).res.body).toBe(first);
    nextUnit(h);
    const later = await getActive(h);
    expect(later.res.body).not.toBe(first);
    expect(later.body.machines[0]?.transitions).toBe(2);
  });

  it('in-process ranking() clamps and defaults like the route', async () => {
    h = await chainHarness();
    expect(h.api.ranking()).toMatchObject({ window: 60, limit: 10 });
    expect(h.api.ranking(0, 1000)).toMatchObject({ window: 1, limit: 100 });
    expect(h.api.ranking(1.5, Number.NaN)).toMatchObject({ window: 60, limit: 10 });
  });

  it('has no dev routes without --dev', async () => {
    h = await chainHarness({ dev: false });
    const res = await h.app.inject({ method: 'POST', url: '/api/dev/machines', payload: {} });
    expect(res.statusCode).toBe(404);
  });
});

describe('dev API: POST /api/dev/machines and /api/dev/transitions (docs/PROTOCOL.md §5, Dev API)', () => {
  const post = (harness: ChainHarness, url: string, payload: unknown) =>
    postJson(harness.app, url, payload);

  it('creates a machine (201), then updates it (200)', async () => {
    h = await chainHarness({ dev: true });
    const created = await post(h, '/api/dev/machines', {
      id: 'm1',
      name: 'One',
      visibility: 'public',
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({
      ok: true,
      machine: { id: 'm1', name: 'One', visibility: 'public', created: true },
    });
    const updated = await post(h, '/api/dev/machines', {
      id: 'm1',
      name: 'One',
      visibility: 'private',
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({ machine: { visibility: 'private', created: false } });
  });

  it('records transitions in the current unit by default', async () => {
    h = await chainHarness({ dev: true });
    await post(h, '/api/dev/machines', { id: 'm1', name: 'One', visibility: 'public' });
    const res = await post(h, '/api/dev/transitions', { machine_id: 'm1', count: 3 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, machine_id: 'm1', unit: h.api.unitNow(), count: 3 });
  });

  it('records transitions in an explicit past unit, visible at once', async () => {
    h = await chainHarness({ dev: true });
    await post(h, '/api/dev/machines', { id: 'm1', name: 'One', visibility: 'public' });
    const unit = h.api.unitNow() - 5;
    expect(
      (await post(h, '/api/dev/transitions', { machine_id: 'm1', count: 4, unit })).statusCode,
    ).toBe(200);
    expect((await getActive(h)).body.machines).toEqual([
      { rank: 1, id: 'm1', name: 'One', transitions: 4 },
    ]);
  });

  const refusals: [string, string, unknown, number, string][] = [
    ['machine body not an object', '/api/dev/machines', [1], 400, 'INVALID_BODY'],
    [
      'machine with an unknown field',
      '/api/dev/machines',
      { id: 'a', name: 'A', visibility: 'public', x: 1 },
      400,
      'INVALID_BODY',
    ],
    [
      'machine without id',
      '/api/dev/machines',
      { name: 'A', visibility: 'public' },
      400,
      'INVALID_MACHINE_ID',
    ],
    [
      'machine with a bad id',
      '/api/dev/machines',
      { id: 'a b', name: 'A', visibility: 'public' },
      400,
      'INVALID_MACHINE_ID',
    ],
    [
      'machine with a numeric name',
      '/api/dev/machines',
      { id: 'a', name: 5, visibility: 'public' },
      400,
      'INVALID_NAME',
    ],
    [
      'machine with a bad visibility',
      '/api/dev/machines',
      { id: 'a', name: 'A', visibility: 'hidden' },
      400,
      'INVALID_VISIBILITY',
    ],
    [
      'transitions of an unknown machine',
      '/api/dev/transitions',
      { machine_id: 'ghost', count: 1 },
      404,
      'UNKNOWN_MACHINE',
    ],
    [
      'transitions with a string count',
      '/api/dev/transitions',
      { machine_id: 'known', count: '1' },
      400,
      'INVALID_COUNT',
    ],
    [
      'transitions with count 0',
      '/api/dev/transitions',
      { machine_id: 'known', count: 0 },
      400,
      'INVALID_COUNT',
    ],
    [
      'transitions with a fractional unit',
      '/api/dev/transitions',
      { machine_id: 'known', count: 1, unit: 1.5 },
      400,
      'INVALID_UNIT',
    ],
    [
      'transitions with a string unit',
      '/api/dev/transitions',
      { machine_id: 'known', count: 1, unit: '5' },
      400,
      'INVALID_UNIT',
    ],
    [
      'transitions with an unknown field',
      '/api/dev/transitions',
      { machine_id: 'known', count: 1, n: 1 },
      400,
      'INVALID_BODY',
    ],
    [
      'transitions without machine_id',
      '/api/dev/transitions',
      { count: 1 },
      400,
      'INVALID_MACHINE_ID',
    ],
  ];
  it.each(refusals)('refuses %s', async (_label, url, payload, status, code) => {
    h = await chainHarness({ dev: true });
    h.api.addMachine({ id: 'known', name: 'K', visibility: 'public' });
    const res = await post(h, url, payload);
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toContain('application/json');
    expect(res.json()).toMatchObject({ ok: false, code });
  });

  it('refuses a unit in the future', async () => {
    h = await chainHarness({ dev: true });
    h.api.addMachine({ id: 'known', name: 'K', visibility: 'public' });
    const res = await post(h, '/api/dev/transitions', {
      machine_id: 'known',
      count: 1,
      unit: h.api.unitNow() + 1,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ok: false, code: 'UNIT_IN_FUTURE' });
  });

  it('refuses a unit older than the retained range', async () => {
    h = await chainHarness({ dev: true });
    h.api.addMachine({ id: 'known', name: 'K', visibility: 'public' });
    const res = await post(h, '/api/dev/transitions', {
      machine_id: 'known',
      count: 1,
      unit: h.api.unitNow() - 3601,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ok: false, code: 'UNIT_TOO_OLD' });
  });

  it('reset() clears machines and counts', async () => {
    h = await chainHarness({ dev: true });
    h.api.addMachine({ id: 'known', name: 'K', visibility: 'public' });
    h.api.addTransitions({ machine_id: 'known', count: 1, unit: h.api.unitNow() - 1 });
    await h.module.reset();
    expect((await getActive(h)).body.machines).toEqual([]);
    expect(
      (await post(h, '/api/dev/transitions', { machine_id: 'known', count: 1 })).statusCode,
    ).toBe(404);
  });
});
