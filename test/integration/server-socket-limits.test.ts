/**
 * The socket limits of docs/SERVER.md §Limits on real loopback sockets: a request head or body
 * that does not arrive in time is answered 408 and closed, idle and kept-alive sockets are
 * closed, the connection cap evicts idle sockets so a health probe still gets through, and the
 * request guard (one Host, CONNECT, nosniff) holds on the raw fast path and with --dev.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '#server/compose/start-server.js';
import { rawRequest } from '#test/raw-http.js';

interface Watched {
  readonly socket: Socket;
  /** Everything the server wrote. */
  text(): string;
  /** Resolves with ms from open to close; rejects after `withinMs`. */
  closed(withinMs: number): Promise<number>;
}

function open(port: number, first = ''): Promise<Watched> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let text = '';
    let closedAt: number | undefined;
    const socket = connect(port, '127.0.0.1', () => {
      if (first !== '') socket.write(first);
      resolve({
        socket,
        text: () => text,
        closed: (withinMs) =>
          new Promise((done, fail) => {
            if (closedAt !== undefined) return done(closedAt - t0);
            const timer = setTimeout(() => fail(new Error('still open')), withinMs);
            socket.once('close', () => {
              clearTimeout(timer);
              done((closedAt ?? performance.now()) - t0);
            });
          }),
      });
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('close', () => (closedAt = performance.now()));
    socket.on('error', () => undefined);
    socket.once('error', reject);
  });
}

const portOf = (server: RunningServer): number => Number(new URL(server.url).port);
const FAST = {
  headersTimeoutMs: 300,
  requestTimeoutMs: 600,
  keepAliveTimeoutMs: 300,
  idleTimeoutMs: 5_000,
  simulate: false,
};

let server: RunningServer | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await server?.close();
  server = undefined;
});

describe.each([
  ['the raw fast path', false],
  ['--dev (no raw handlers)', true],
])('socket timeouts on %s', (_name, dev) => {
  it('answers a body trickle 408 REQUEST_TIMEOUT and closes it after the request timeout', async () => {
    server = await startServer({ ...FAST, dev });
    const w = await open(
      portOf(server),
      'POST /api/demo-key/mint HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n',
    );
    sockets.push(w.socket);
    const trickle = setInterval(() => w.socket.writable && w.socket.write(' '), 50);
    try {
      const ms = await w.closed(3_000);
      expect(ms).toBeGreaterThanOrEqual(500);
      expect(w.text()).toMatch(/^HTTP\/1\.1 408 /);
      expect(w.text()).toContain('"code":"REQUEST_TIMEOUT"');
    } finally {
      clearInterval(trickle);
    }
  });

  it('closes a socket that never sends a head after the head timeout', async () => {
    server = await startServer({ ...FAST, dev });
    const w = await open(portOf(server));
    sockets.push(w.socket);
    expect(await w.closed(3_000)).toBeGreaterThanOrEqual(250);
  });

  it('closes a kept-alive socket after the keep-alive timeout', async () => {
    server = await startServer({ ...FAST, dev, headersTimeoutMs: 5_000, requestTimeoutMs: 5_000 });
    const w = await open(portOf(server), 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    sockets.push(w.socket);
    expect(await w.closed(3_000)).toBeGreaterThanOrEqual(250);
    expect(w.text()).toMatch(/^HTTP\/1\.1 200 /);
  });
});

describe('the connection cap', () => {
  it('evicts the oldest idle socket so a health probe still gets through', async () => {
    server = await startServer({ simulate: false, maxConnections: 8, fdReserve: 0 });
    const idle: Watched[] = [];
    for (let i = 0; i < 8; i += 1) idle.push(await open(portOf(server)));
    sockets.push(...idle.map((w) => w.socket));
    for (let i = 0; i < 5; i += 1) {
      const answer = await rawRequest(portOf(server), { path: '/healthz' });
      expect(answer.status).toBe(200);
    }
    // The first idle sockets made room; the newest are still open.
    expect(await idle[0]?.closed(2_000)).toBeGreaterThanOrEqual(0);
    expect(idle[7]?.socket.destroyed).toBe(false);
  });
});

describe('a request body past the limit', () => {
  const HEAD =
    'POST /api/demo-key/mint HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n';

  it('answers a head whose Content-Length passes the body limit 413 and closes at once', async () => {
    server = await startServer({ ...FAST, headersTimeoutMs: 5_000, requestTimeoutMs: 5_000 });
    const w = await open(portOf(server), HEAD);
    sockets.push(w.socket);
    // Not the request timeout's 5 s: the answer does not wait for the body.
    expect(await w.closed(2_000)).toBeLessThan(2_000);
    expect(w.text()).toMatch(/^HTTP\/1\.1 413 /);
    expect(w.text()).toContain('"code":"BODY_TOO_LARGE"');
  });

  it('holds a trickle refused 429 before Fastify until the request timeout, then 408', async () => {
    server = await startServer({ ...FAST, rateLimitPerMinute: 1 });
    const port = portOf(server);
    // The quota (1 a minute) used: the next mint from this address is refused before Fastify.
    expect((await rawRequest(port, { method: 'POST', path: '/api/demo-key/mint' })).status).toBe(
      200,
    );
    const w = await open(port, HEAD);
    sockets.push(w.socket);
    const trickle = setInterval(() => w.socket.writable && w.socket.write(' '), 50);
    try {
      // Held, not closed at once: a client that reconnects would cost a connection each time.
      const ms = await w.closed(3_000);
      expect(ms).toBeGreaterThanOrEqual(500);
      expect(w.text()).toMatch(/^HTTP\/1\.1 429 /);
      expect(w.text()).toContain('"code":"RATE_LIMITED"');
      expect(w.text()).toContain('HTTP/1.1 408 ');
    } finally {
      clearInterval(trickle);
    }
  });
});

describe('the request guard', () => {
  it('refuses two Host headers with 400 DUPLICATE_HOST', async () => {
    server = await startServer({ simulate: false });
    const w = await open(
      portOf(server),
      'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n\r\n',
    );
    sockets.push(w.socket);
    await w.closed(3_000);
    expect(w.text()).toMatch(/^HTTP\/1\.1 400 /);
    expect(w.text()).toContain('"code":"DUPLICATE_HOST"');
  });

  it('answers CONNECT 405 METHOD_NOT_ALLOWED and closes', async () => {
    server = await startServer({ simulate: false });
    const w = await open(portOf(server), 'CONNECT example.com:443 HTTP/1.1\r\nHost: x\r\n\r\n');
    sockets.push(w.socket);
    await w.closed(3_000);
    expect(w.text()).toMatch(/^HTTP\/1\.1 405 /);
    expect(w.text()).toContain('"code":"METHOD_NOT_ALLOWED"');
  });

  it.each([
    ['/api/updates/keys', false],
    ['/api/updates/manifest', false],
    ['/api/chain/active', false],
    ['/no/such/route', true],
    ['/healthz', true],
  ])('sends nosniff on %s (dev %s)', async (path, dev) => {
    server = await startServer({ simulate: false, dev });
    const answer = await rawRequest(portOf(server), { path });
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
  });
});
