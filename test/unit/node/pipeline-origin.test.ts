/**
 * Which origins keep pipelined GETs (src/node/http/pipeline-pool.ts MAX_STRIKES, docs/UPDATER.md §5,
 * "Pipelined GETs"): one that redirects every GET or closes after each answer goes to
 * node:http for an hour, with no GET failed on the way and `parallel` sockets at most; one that
 * closes after a keep-alive limit, or whose GETs we abort, keeps pipelining.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpFetcher } from '#node/http/http-fetcher.js';
import { DIRECT_FOR_MS } from '#node/http/pipeline-pool.js';
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

const fetcher = () => createHttpFetcher({ connectTimeoutMs: 2000, pipelineConnections: 2 });
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
  it('sends every GET of an origin that redirects them to node:http, failing none', async () => {
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
      expect(f.pipelines?.(`${base}/next`)).toBe(false);
      // From now on each GET is asked once, on at most `parallel` (2) kept-alive sockets.
      const before = seen.requests;
      const ports = seen.ports.length;
      expect(await many(f, base, 100, 16)).toEqual(new Array(16).fill('302 '));
      expect(seen.requests - before).toBe(16);
      expect(new Set(seen.ports.slice(ports)).size).toBeLessThanOrEqual(2);
      await new Promise((resolve) => setImmediate(resolve));
      // GETs that waited for a socket arm no connect watch on it (one listener each, before).
      expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('sends every GET of an origin that closes after each answer to node:http', async () => {
    const { base } = await httpServer((req, res) => {
      res.writeHead(200, { connection: 'close', 'content-length': String(req.url?.length) });
      res.end(req.url);
    });
    const f = fetcher();
    const bodies = await many(f, base, 0, 16);
    expect(bodies).toEqual(Array.from({ length: 16 }, (_, i) => `200 /f${i}`));
    expect(f.pipelines?.(`${base}/next`)).toBe(false);
  });

  it('keeps pipelining to an origin that closes after a keep-alive limit', async () => {
    const { base, seen } = await httpServer(
      (req, res) => {
        res.writeHead(200, { 'content-length': String(req.url?.length) }).end(req.url);
      },
      (server) => {
        // Connection: close on every fifth answer of a connection, as nginx's keepalive_requests.
        server.maxRequestsPerSocket = 5;
      },
    );
    const f = fetcher();
    // Eight at a time on two connections: the pull's depth of four GETs per connection.
    for (let round = 0; round < 10; round++) {
      const bodies = await many(f, base, 8 * round, 8);
      expect(bodies).toEqual(Array.from({ length: 8 }, (_, i) => `200 /f${8 * round + i}`));
    }
    expect(f.pipelines?.(`${base}/next`)).toBe(true);
    expect(seen.requests).toBeGreaterThanOrEqual(80);
  });

  it('keeps pipelining to an origin whose queued GETs it aborted itself', async () => {
    const { base, seen } = await httpServer((req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-length': String(req.url?.length) }).end(req.url);
      }, 50);
    });
    // One connection, so the aborted GET is queued behind the other one.
    const f = createHttpFetcher({ connectTimeoutMs: 2000, pipelineConnections: 1 });
    expect(await statusAndBody(f, `${base}/warm`)).toBe('200 /warm');
    for (let round = 0; round < 3; round++) {
      const aborter = new AbortController();
      const asked = seen.requests;
      const first = statusAndBody(f, `${base}/a${round}`);
      const queued = statusAndBody(f, `${base}/b${round}`, aborter.signal);
      // Both on the wire, neither answered: the abort ends that connection, ours to end.
      for (let i = 0; i < 100 && seen.requests < asked + 2; i++) await sleep(5);
      aborter.abort();
      await expect(queued).rejects.toMatchObject({ code: 'ABORTED' });
      expect(await first).toBe(`200 /a${round}`);
    }
    expect(f.pipelines?.(`${base}/next`)).toBe(true);
  });

  /**
   * A server whose connection i behaves as plan[i] (later ones never close): `reset` after one
   * answer (the network's doing), `close` after one with `Connection: close` (a strike),
   * `prove` the same after four (the depth that proves the origin); then 24 GETs, four at a
   * time, on one connection.
   */
  async function pipelinedAfter(plan: readonly ('reset' | 'close' | 'prove')[]): Promise<boolean> {
    type Counted = Socket & { index?: number; answered?: number };
    let conns = 0;
    const { base } = await httpServer(
      (req, res) => {
        const socket = req.socket as Counted;
        socket.answered = (socket.answered ?? 0) + 1;
        const step = plan[socket.index ?? 0];
        const closing = step === 'close' || (step === 'prove' && socket.answered === 4);
        // node's server closes the connection after an answer that says so.
        if (closing) res.setHeader('connection', 'close');
        res.writeHead(200, { 'content-length': String(req.url?.length) }).end(req.url, () => {
          if (step === 'reset') socket.resetAndDestroy();
        });
      },
      (server) => {
        server.on('connection', (socket: Counted) => {
          socket.index = conns++;
        });
      },
    );
    const f = createHttpFetcher({ connectTimeoutMs: 2000, pipelineConnections: 1 });
    for (let round = 0; round < 6; round++) {
      const bodies = await many(f, base, 4 * round, 4);
      expect(bodies).toEqual(Array.from({ length: 4 }, (_, i) => `200 /f${4 * round + i}`));
    }
    expect(conns).toBeGreaterThan(plan.length);
    return f.pipelines?.(`${base}/next`) === true;
  }

  it('takes resets for the network: no strike however many', async () => {
    expect(await pipelinedAfter(['reset', 'reset', 'reset'])).toBe(true);
  });

  it('clears the strikes once a connection answered its depth', async () => {
    expect(await pipelinedAfter(['close', 'prove', 'close'])).toBe(true);
    // And without the proof between them, two strikes make the origin direct.
    expect(await pipelinedAfter(['close', 'close'])).toBe(false);
  });

  it('tries pipelining again once an origin has been on node:http for DIRECT_FOR_MS', async () => {
    // Ports of the pipelined connections: the pipeline writes Host first, node:http after the
    // caller's headers (pipeline-pool.ts requestText).
    const pipelined = new Set<number>();
    const { base } = await httpServer((req, res) => {
      if (req.rawHeaders[0] === 'Host') pipelined.add(req.socket.remotePort ?? 0);
      res.writeHead(302, { location: `/cdn${req.url ?? ''}`, 'content-length': '0' }).end();
    });
    let now = 1_000;
    const f = createHttpFetcher({ connectTimeoutMs: 2000, pipelineConnections: 2, now: () => now });
    expect(await many(f, base, 0, 16)).toEqual(new Array(16).fill('302 '));
    expect(f.pipelines?.(`${base}/x`)).toBe(false);
    now += DIRECT_FOR_MS - 1;
    expect(f.pipelines?.(`${base}/x`)).toBe(false);
    now += 1;
    expect(f.pipelines?.(`${base}/x`)).toBe(true);
    // From no strikes: an origin that still breaks the pipeline is back on node:http, no GET
    // lost, after breaking as many pipelined connections as the first time.
    const first = pipelined.size;
    expect(first).toBeGreaterThanOrEqual(2);
    pipelined.clear();
    expect(await many(f, base, 100, 16)).toEqual(new Array(16).fill('302 '));
    expect(f.pipelines?.(`${base}/x`)).toBe(false);
    expect(pipelined.size).toBe(first);
  });

  it('holds no GET that waited for a socket to the connect deadline', async () => {
    // Each answer takes longer than the deadline; a GET handed a socket that just answered
    // another one is connected already and must not be timed out as if it were connecting.
    const { base } = await httpServer((_req, res) => {
      setTimeout(() => {
        res.writeHead(302, { location: '/elsewhere', 'content-length': '0' }).end();
      }, 250);
    });
    const f = createHttpFetcher({ connectTimeoutMs: 200, pipelineConnections: 1 });
    // Two strikes (two broken connections) make the origin direct: one socket for everyone.
    expect(await many(f, base, 0, 4)).toEqual(new Array(4).fill('302 '));
    expect(f.pipelines?.(`${base}/next`)).toBe(false);
    expect(await many(f, base, 10, 3)).toEqual(new Array(3).fill('302 '));
  });
});
