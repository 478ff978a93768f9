/**
 * Pipelined GETs against origins that make pipelining hard (src/node/http/undici-fetcher.ts,
 * docs/UPDATER.md §5, "Pipelined GETs"): one that redirects every GET, closes after each
 * answer, closes after a keep-alive limit, answers slower than the connect deadline, or whose
 * queued GETs we abort: every GET answered, none failed, `connections` sockets at most at once.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createUndiciFetcher } from '#node/http/undici-fetcher.js';
import { readAll } from '#test/loopback-server.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

interface Seen {
  requests: number;
  /** Remote ports of the connections each request came on. */
  readonly ports: number[];
}

async function httpServer(
  answer: (req: IncomingMessage, res: ServerResponse) => void,
  setUp: (server: Server) => void = () => undefined,
): Promise<{ base: string; seen: Seen }> {
  const seen: Seen = { requests: 0, ports: [] };
  const server = createServer((req, res) => {
    seen.requests++;
    seen.ports.push(req.socket.remotePort ?? 0);
    answer(req, res);
  });
  setUp(server);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const fetcher = (connections = 2) =>
  createUndiciFetcher({ connectTimeoutMs: 2000, connections, pipelining: 4 });
type Fetcher = ReturnType<typeof fetcher>;
const statusAndBody = async (
  f: Fetcher,
  url: string,
  signal = new AbortController().signal,
): Promise<string> => {
  const response = await f.get(url, { headers: { 'user-agent': 't' }, signal });
  return `${response.status} ${await readAll(response.body)}`;
};
const many = (f: Fetcher, base: string, from: number, count: number): Promise<string[]> =>
  Promise.all(Array.from({ length: count }, (_, i) => statusAndBody(f, `${base}/f${from + i}`)));

describe('origins and pipelining', () => {
  it('passes on every 302 of an origin that redirects all GETs, failing none', async () => {
    const { base, seen } = await httpServer((req, res) => {
      res.writeHead(302, { location: `/cdn${req.url ?? ''}`, 'content-length': '0' }).end();
    });
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning);
    };
    process.on('warning', onWarning);
    try {
      const f = fetcher();
      expect(await many(f, base, 0, 16)).toEqual(new Array(16).fill('302 '));
      expect(await many(f, base, 100, 16)).toEqual(new Array(16).fill('302 '));
      expect(seen.requests).toBe(32);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('answers every GET of an origin that closes after each answer', async () => {
    const { base } = await httpServer((req, res) => {
      res.writeHead(200, { connection: 'close', 'content-length': String(req.url?.length) });
      res.end(req.url);
    });
    const bodies = await many(fetcher(), base, 0, 16);
    expect(bodies).toEqual(Array.from({ length: 16 }, (_, i) => `200 /f${i}`));
  });

  it('answers every GET of an origin that closes after a keep-alive limit', async () => {
    const { base, seen } = await httpServer(
      (req, res) => {
        res.writeHead(200, { 'content-length': String(req.url?.length) }).end(req.url);
      },
      (server) => {
        server.maxRequestsPerSocket = 5;
      },
    );
    const f = fetcher();
    for (let round = 0; round < 10; round++) {
      const bodies = await many(f, base, 8 * round, 8);
      expect(bodies).toEqual(Array.from({ length: 8 }, (_, i) => `200 /f${8 * round + i}`));
    }
    expect(seen.requests).toBeGreaterThanOrEqual(80);
  });

  it('answers the others when it aborts one of its queued GETs', async () => {
    const { base, seen } = await httpServer((req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-length': String(req.url?.length) }).end(req.url);
      }, 50);
    });
    const f = fetcher(1);
    expect(await statusAndBody(f, `${base}/warm`)).toBe('200 /warm');
    for (let round = 0; round < 3; round++) {
      const aborter = new AbortController();
      const asked = seen.requests;
      const first = statusAndBody(f, `${base}/a${round}`);
      const queued = statusAndBody(f, `${base}/b${round}`, aborter.signal);
      for (let i = 0; i < 100 && seen.requests < asked + 2; i++) await sleep(5);
      aborter.abort();
      await expect(queued).rejects.toMatchObject({ code: 'ABORTED' });
      expect(await first).toBe(`200 /a${round}`);
    }
  });

  it('holds no GET that waited for a socket to the connect deadline', async () => {
    // Each answer takes longer than the deadline; a GET queued on a socket that is connected
    // already must not be timed out as if it were connecting.
    const { base, seen } = await httpServer((_req, res) => {
      setTimeout(() => {
        res.writeHead(302, { location: '/elsewhere', 'content-length': '0' }).end();
      }, 250);
    });
    const f = createUndiciFetcher({ connectTimeoutMs: 200, connections: 1, pipelining: 4 });
    expect(await many(f, base, 0, 4)).toEqual(new Array(4).fill('302 '));
    expect(await many(f, base, 10, 6)).toEqual(new Array(6).fill('302 '));
    expect(new Set(seen.ports).size).toBe(1);
  });
});
