/**
 * The pre-router fast path of GET /api/chain/active (ServerModule.handleRaw, docs/CHAIN.md) must answer exactly what the Fastify route answers: same status, headers that
 * matter and bytes, for the same URL. The real port (no --dev) takes the fast path; app.inject()
 * always takes the Fastify route, so comparing the two proves they agree.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '#server/compose/app.js';
import { unitStartMs } from '#server/chain/time-units.js';

const START_MS = Math.ceil(unitStartMs(2_300_000_000));
let built: BuiltApp;
let url: string;
let nowMs = START_MS;
/** Requests that went through Fastify (its onRequest hook). */
let routed = 0;

beforeAll(async () => {
  built = await buildApp({ simulate: false, logLevel: 'silent' }, { now: () => nowMs });
  const chain = built.modules.chain.api;
  for (let i = 0; i < 30; i++) {
    const id = `m${String(i).padStart(2, '0')}`;
    chain.addMachine({ id, name: `Machine ${i}`, visibility: i % 5 === 0 ? 'private' : 'public' });
    chain.addTransitions({ machine_id: id, count: ((i * 7) % 11) + 1 });
  }
  nowMs += 1000; // the unit with the transitions completes
  built.app.addHook('onRequest', (_request, _reply, done) => {
    routed += 1;
    done();
  });
  await built.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await built.app.close();
});

const SAME_AS_ROUTE = [
  '/api/chain/active',
  '/api/chain/active?',
  '/api/chain/active?limit=3',
  '/api/chain/active?limit=500&window=99999',
  '/api/chain/active?limit=0&window=0',
  '/api/chain/active?limit=%35',
  '/api/chain/active?limit=5&limit=6',
  '/api/chain/active?limit=abc&window=-1',
  '/api/chain/active?window=1&unknown=x',
  '/api/chain/active?limit=%zz',
];

describe('GET /api/chain/active fast path', () => {
  for (const path of SAME_AS_ROUTE) {
    it(`answers ${path} with the Fastify route's status, CORS, type and bytes`, async () => {
      const real = await fetch(`${url}${path}`);
      const injected = await built.app.inject({ method: 'GET', url: path });
      expect(real.status).toBe(injected.statusCode);
      expect(real.headers.get('access-control-allow-origin')).toBe('*');
      expect(real.headers.get('content-type')).toBe(injected.headers['content-type']);
      expect(Buffer.from(await real.arrayBuffer()).equals(injected.rawPayload)).toBe(true);
    });
  }

  it('bypasses Fastify on the real port, and only for the exact path', async () => {
    const before = routed;
    await (await fetch(`${url}/api/chain/active?limit=4`)).arrayBuffer();
    expect(routed).toBe(before);
    await (await fetch(`${url}/api/chain/active/`)).arrayBuffer();
    expect(routed).toBe(before + 1);
  });

  it('answers HEAD with the headers and no body', async () => {
    const real = await fetch(`${url}/api/chain/active?limit=2`, { method: 'HEAD' });
    expect(real.status).toBe(200);
    expect(Number(real.headers.get('content-length'))).toBeGreaterThan(0);
    expect((await real.arrayBuffer()).byteLength).toBe(0);
  });

  it('leaves other paths and methods to Fastify (404, 405 and the CORS preflight)', async () => {
    expect((await fetch(`${url}/api/chain/active/`)).status).toBe(404);
    expect((await fetch(`${url}/api/chain/activex`)).status).toBe(404);
    expect((await fetch(`${url}/api/chain/active`, { method: 'POST' })).status).toBe(405);
    const preflight = await fetch(`${url}/api/chain/active`, { method: 'OPTIONS' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('GET');
  });

  it('never lists a private machine', async () => {
    const body = (await (await fetch(`${url}/api/chain/active?limit=100`)).json()) as {
      machines: { id: string }[];
    };
    expect(body.machines.length).toBe(24);
    expect(body.machines.some((m) => Number(m.id.slice(1)) % 5 === 0)).toBe(false);
  });
});
