/**
 * The limits that act before Fastify, on real loopback sockets (docs/SERVER.md §Rate limits,
 * §Sockets): an address over its rate limit is answered 429 by the raw server with the same
 * status, code, body, Retry-After and nosniff as the Fastify limiter's (which still answers
 * with --dev, where the request log must see every request), and counted apart; at the
 * connection cap, room is taken from an address over its share, never from another; at the
 * defaults, a QA suite's burst from one address is never refused.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '#server/compose/start-server.js';
import { rawRequest, type RawAnswer } from '#test/raw-http.js';

const portOf = (server: RunningServer): number => Number(new URL(server.url).port);
const MINT = { method: 'POST', path: '/api/demo-key/mint' } as const;
const BAD_KEY = { authorization: `Bearer mk_${'A'.repeat(43)}` };

let servers: RunningServer[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const s of servers) await s.close();
  servers = [];
});

async function start(options: Parameters<typeof startServer>[0]): Promise<RunningServer> {
  const server = await startServer({ simulate: false, ...options });
  servers.push(server);
  return server;
}

/** The answer's shape: what must not differ between the two 429s. */
function shape(answer: RawAnswer) {
  const body = JSON.parse(answer.body) as { ok: boolean; code: string; error: string };
  return {
    status: answer.status,
    type: answer.headers['content-type'],
    nosniff: answer.headers['x-content-type-options'],
    retryAfterOk:
      /^[1-9]\d*$/.test(answer.headers['retry-after'] ?? '') &&
      Number(answer.headers['retry-after']) <= 60,
    body: { ...body, error: body.error.replace(/\d+ s$/, 'N s') },
  };
}

function openIdle(port: number, localAddress: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress }, () => resolve(socket));
    socket.on('error', () => undefined);
    socket.once('error', reject);
    sockets.push(socket);
  });
}

const closed = (socket: Socket): Promise<void> =>
  socket.destroyed ? Promise.resolve() : new Promise((done) => socket.once('close', () => done()));

describe('the 429 before Fastify', () => {
  it('answers the mint past the quota like the Fastify limiter, and counts it apart', async () => {
    const raw = await start({ rateLimitPerMinute: 2 });
    const dev = await start({ rateLimitPerMinute: 2, dev: true });
    const answers: RawAnswer[] = [];
    for (const server of [raw, dev]) {
      for (let i = 0; i < 2; i += 1)
        expect((await rawRequest(portOf(server), MINT)).status).toBe(200);
      answers.push(await rawRequest(portOf(server), MINT));
    }
    const [early, limiter] = answers.map((a) => shape(a));
    expect(early).toEqual(limiter);
    expect(early).toMatchObject({
      status: 429,
      type: 'application/json; charset=utf-8',
      nosniff: 'nosniff',
      retryAfterOk: true,
      body: { ok: false, code: 'RATE_LIMITED' },
    });
    expect(raw.counters().rate_limits).toMatchObject({ limited_early: 1, limited_every: 0 });
    // With --dev every request goes through Fastify, so the request log sees the 429 ...
    expect(dev.counters().rate_limits).toMatchObject({ limited_early: 0, limited_every: 1 });
    const log = await rawRequest(portOf(dev), { path: '/api/dev/requests' });
    const listed = JSON.parse(log.body) as { counters: unknown; requests: { status: number }[] };
    // ... and the counters are beside it.
    expect(listed.counters).toMatchObject({
      rate_limits: { limited_every: 1, limited_early: 0, failures_counted: 0 },
      connections: { evicted: 0, refused: 0, evicted_per_address: 0, refused_per_address: 0 },
    });
    expect(listed.requests.map((r) => r.status)).toEqual([200, 200, 429]);
  });

  it('refuses every credential of an address whose failures used the quota, not another address', async () => {
    const server = await start({ rateLimitPerMinute: 2 });
    const port = portOf(server);
    const minted = await rawRequest(port, MINT);
    const good = {
      authorization: `Bearer ${(JSON.parse(minted.body) as { machine_key: string }).machine_key}`,
    };
    const manifest = (headers: Record<string, string>, localAddress?: string) =>
      rawRequest(port, {
        path: '/api/updates/manifest',
        headers,
        ...(localAddress === undefined ? {} : { localAddress }),
      });
    expect((await manifest(BAD_KEY)).status).toBe(401);
    expect((await manifest(BAD_KEY)).status).toBe(401);
    const refused = await manifest(good);
    expect(shape(refused)).toMatchObject({ status: 429, nosniff: 'nosniff', retryAfterOk: true });
    expect(refused.code).toBe('RATE_LIMITED');
    expect((await manifest(good, '127.0.0.2')).status).not.toBe(429);
    expect(server.counters().rate_limits).toMatchObject({ failures_counted: 2, limited_early: 1 });
  });

  it('starts every address afresh after a reset', async () => {
    const server = await start({ rateLimitPerMinute: 1 });
    const port = portOf(server);
    expect((await rawRequest(port, MINT)).status).toBe(200);
    expect((await rawRequest(port, MINT)).status).toBe(429);
    await server.reset();
    expect((await rawRequest(port, MINT)).status).toBe(200);
    expect(server.counters().rate_limits).toMatchObject({ limited_early: 0 });
  });
});

describe('the per-address connection cap', () => {
  it('takes the room at the cap from the address over its share, not the oldest socket', async () => {
    const server = await start({ maxConnections: 8, maxConnectionsPerAddress: 3, fdReserve: 0 });
    const port = portOf(server);
    // The oldest idle sockets are the legitimate address's; below the cap .2 may hold 6.
    const mine = [await openIdle(port, '127.0.0.1'), await openIdle(port, '127.0.0.1')];
    const heavy: Socket[] = [];
    for (let i = 0; i < 6; i += 1) heavy.push(await openIdle(port, '127.0.0.2'));
    expect((await rawRequest(port, { path: '/healthz' })).status).toBe(200);
    await closed(heavy[0] as Socket);
    // .2, at its share or over, makes room among its own sockets only.
    await openIdle(port, '127.0.0.2');
    await closed(heavy[1] as Socket);
    expect(mine.filter((s) => s.destroyed)).toEqual([]);
    expect(server.counters().connections).toMatchObject({
      evicted_per_address: 2,
      refused_per_address: 0,
      evicted: 0,
    });
  });

  it('never refuses a QA suite’s burst from one address at the defaults', async () => {
    const server = await start({});
    const port = portOf(server);
    const held = await Promise.all(Array.from({ length: 300 }, () => openIdle(port, '127.0.0.1')));
    const answers = await Promise.all(
      Array.from({ length: 100 }, () => rawRequest(port, { path: '/healthz' })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 100 }, () => 200));
    expect(held.filter((s) => s.destroyed)).toEqual([]);
    expect(server.counters().connections).toMatchObject({
      evicted: 0,
      refused: 0,
      evicted_per_address: 0,
      refused_per_address: 0,
    });
  });
});
