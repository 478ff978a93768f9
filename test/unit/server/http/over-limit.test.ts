/**
 * The 429 before Fastify (docs/SERVER.md §Rate limits): an address noted over its quota is
 * answered on its scope's routes only, until its window ends, with the limiter's code, body,
 * Retry-After and nosniff; other addresses, other routes and other methods pass through.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  OverLimit,
  RouteSet,
  rateLimitedMessage,
  retryAfterSeconds,
} from '#server/http/over-limit.js';
import { rawRequest } from '#test/raw-http.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A loopback server answering with `over` first, else 200 "passed". */
async function serve(over: OverLimit): Promise<number> {
  server = createServer((request, response) => {
    if (over.handle(request, response)) return;
    response.end('passed');
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function limited(now: { t: number }): OverLimit {
  const over = new OverLimit(() => now.t);
  over.route('every', '/api/demo-key/mint', 'POST');
  over.route('failures', '/api/updates/artifacts/:sha256', ['GET', 'HEAD']);
  return over;
}

describe('OverLimit: the 429 before Fastify', () => {
  it('answers an address over its quota with the limiter 429, Retry-After and nosniff', async () => {
    const now = { t: 1_000_000 };
    const over = limited(now);
    const port = await serve(over);
    over.mark('every', '127.0.0.1', 42_500);
    const answer = await rawRequest(port, { method: 'POST', path: '/api/demo-key/mint' });
    expect(answer.status).toBe(429);
    expect(answer.headers['retry-after']).toBe('43');
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(answer.body)).toEqual({
      ok: false,
      code: 'RATE_LIMITED',
      error: rateLimitedMessage(43),
    });
    expect(over.refused).toBe(1);
  });

  it('lets another address, another route and another method through', async () => {
    const now = { t: 0 };
    const over = limited(now);
    const port = await serve(over);
    over.mark('every', '127.0.0.1', 60_000);
    const other = await rawRequest(port, {
      method: 'POST',
      path: '/api/demo-key/mint',
      localAddress: '127.0.0.2',
    });
    expect(other.body).toBe('passed');
    expect((await rawRequest(port, { path: '/api/demo-key/mint' })).body).toBe('passed');
    expect((await rawRequest(port, { path: '/api/updates/artifacts/ab' })).body).toBe('passed');
    expect(over.refused).toBe(0);
  });

  it('matches a parameter segment and ignores the query, but never an empty segment', async () => {
    const now = { t: 0 };
    const over = limited(now);
    const port = await serve(over);
    over.mark('failures', '127.0.0.1', 60_000);
    expect((await rawRequest(port, { path: '/api/updates/artifacts/ab?x=1' })).status).toBe(429);
    expect(
      (await rawRequest(port, { method: 'HEAD', path: '/api/updates/artifacts/ab' })).status,
    ).toBe(429);
    expect((await rawRequest(port, { path: '/api/updates/artifacts/' })).body).toBe('passed');
    expect((await rawRequest(port, { path: '/api/updates/artifacts/ab/c' })).body).toBe('passed');
    // The failure scope does not cover the mint.
    const mint = await rawRequest(port, { method: 'POST', path: '/api/demo-key/mint' });
    expect(mint.body).toBe('passed');
  });

  it('lets the address through once its window ends, and after a clear', async () => {
    const now = { t: 0 };
    const over = limited(now);
    const port = await serve(over);
    const mint = { method: 'POST', path: '/api/demo-key/mint' } as const;
    over.mark('every', '127.0.0.1', 10_000);
    expect((await rawRequest(port, mint)).status).toBe(429);
    now.t = 10_000;
    expect((await rawRequest(port, mint)).body).toBe('passed');
    over.mark('every', '127.0.0.1', 10_000);
    over.clear();
    expect((await rawRequest(port, mint)).body).toBe('passed');
    expect(over.refused).toBe(0);
  });

  it('keeps at most MAX_ADDRESSES per scope, making room only from windows that ended', async () => {
    const now = { t: 0 };
    const over = limited(now);
    const port = await serve(over);
    const mint = { method: 'POST', path: '/api/demo-key/mint' } as const;
    for (let i = 0; i < OverLimit.MAX_ADDRESSES; i += 1) over.mark('every', `10.0.0.${i}`, 1_000);
    // Full, and no window ended: the address is left to the limiter (which still refuses it).
    over.mark('every', '127.0.0.1', 5_000);
    expect((await rawRequest(port, mint)).body).toBe('passed');
    now.t = 1_000;
    over.mark('every', '127.0.0.1', 5_000);
    expect((await rawRequest(port, mint)).status).toBe(429);
  });

  it('answers each Retry-After with its own message as the window runs down', async () => {
    const now = { t: 0 };
    const over = limited(now);
    const port = await serve(over);
    const mint = { method: 'POST', path: '/api/demo-key/mint' } as const;
    over.mark('every', '127.0.0.1', 42_500);
    const seen: [string | undefined, unknown, string][] = [];
    for (const t of [0, 10_000, 0, 41_000]) {
      now.t = t;
      const answer = await rawRequest(port, mint);
      seen.push([answer.headers['retry-after'], answer.code, answer.body]);
    }
    expect(seen.map(([s]) => s)).toEqual(['43', '33', '43', '2']);
    expect(seen.every(([, code]) => code === 'RATE_LIMITED')).toBe(true);
    for (const [s, , body] of seen) {
      expect(JSON.parse(body)).toEqual({
        ok: false,
        code: 'RATE_LIMITED',
        error: rateLimitedMessage(Number(s)),
      });
    }
  });

  it('sees a route noted after a request on its path was let through', async () => {
    const now = { t: 0 };
    const over = limited(now);
    const port = await serve(over);
    over.mark('every', '127.0.0.1', 60_000);
    const token = { method: 'POST', path: '/api/oauth/token' } as const;
    expect((await rawRequest(port, token)).body).toBe('passed');
    over.route('every', '/api/oauth/token', 'POST');
    expect((await rawRequest(port, token)).status).toBe(429);
  });
});

describe('RouteSet: the routes of a scope', () => {
  it('matches many distinct paths right, by method and pattern, the query ignored', () => {
    const routes = new RouteSet();
    routes.add('/api/updates/artifacts/:sha256', ['GET']);
    for (let i = 0; i < 2048; i += 1) {
      expect(routes.has('GET', `/api/updates/artifacts/${i}`)).toBe(true);
      expect(routes.has('GET', `/api/updates/other/${i}`)).toBe(false);
    }
    expect(routes.has('POST', '/api/updates/artifacts/1')).toBe(false);
    expect(routes.has('GET', '/api/updates/artifacts/1?x=2')).toBe(true);
  });
});

describe('retryAfterSeconds', () => {
  it('tells the rest of the window in whole seconds, at least one', () => {
    expect(retryAfterSeconds(0)).toBe(1);
    expect(retryAfterSeconds(1)).toBe(1);
    expect(retryAfterSeconds(1_000)).toBe(1);
    expect(retryAfterSeconds(1_001)).toBe(2);
  });
});
