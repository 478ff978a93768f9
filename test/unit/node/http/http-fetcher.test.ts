/**
 * The Fetcher over node:http(s) (src/node/http/http-fetcher.ts): the same contract as the got
 * fetcher it replaced, plus the connect deadline, keep-alive reuse and a broken body.
 */
import { once } from 'node:events';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createHttpFetcher } from '#node/http/http-fetcher.js';
import { headerOf } from '#node/http/header-of.js';
import { readAll, useLoopbackServer } from '#test/loopback-server.js';
import { makeTestPki } from '#test/tls-cert.js';

const loopback = useLoopbackServer();
const serve = loopback.serve;

const fetcher = createHttpFetcher({ connectTimeoutMs: 2000 });
const signal = () => new AbortController().signal;

describe('http fetcher', () => {
  it('returns status, headers and the streamed body, sending our headers', async () => {
    let auth: string | undefined;
    const base = await serve((req, res) => {
      auth = req.headers.authorization;
      res.writeHead(200, { etag: '"e1"' });
      res.end('payload');
    });
    const response = await fetcher.get(`${base}/x`, {
      headers: { authorization: 'Bearer k' },
      signal: signal(),
    });
    expect(response.status).toBe(200);
    expect(response.header('etag')).toBe('"e1"');
    expect(await readAll(response.body)).toBe('payload');
    expect(auth).toBe('Bearer k');
  });

  it('does not follow redirects and does not throw on error statuses', async () => {
    const base = await serve((req, res) => {
      res.writeHead(req.url === '/r' ? 302 : 500, { location: '/elsewhere' });
      res.end();
    });
    expect((await fetcher.get(`${base}/r`, { headers: {}, signal: signal() })).status).toBe(302);
    expect((await fetcher.get(`${base}/e`, { headers: {}, signal: signal() })).status).toBe(500);
  });

  it('does not decompress: bytes arrive exactly as sent', async () => {
    const base = await serve((_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end('not really gzip');
    });
    const response = await fetcher.get(`${base}/`, { headers: {}, signal: signal() });
    expect(await readAll(response.body)).toBe('not really gzip');
  });

  it('rejects with a transient NETWORK error when nothing listens', async () => {
    const base = await serve((_req, res) => res.end());
    await loopback.close();
    await expect(
      fetcher.get(`${base}/blob?sig=secret`, { headers: {}, signal: signal() }),
    ).rejects.toMatchObject({
      code: 'NETWORK',
      transient: true,
      // The URL without its query, and the errno code (docs/UPDATER.md §7).
      details: { url: `${base}/blob`, errno: 'ECONNREFUSED' },
    });
  });

  it('rejects when aborted', async () => {
    const base = await serve(() => undefined); // never answers
    const controller = new AbortController();
    const pending = fetcher.get(`${base}/`, { headers: {}, signal: controller.signal });
    controller.abort();
    const error = await pending.then(
      () => undefined,
      (e: unknown) => e as { code?: string },
    );
    expect(['ABORTED', 'NETWORK']).toContain(error?.code);
  });
  it('an abort of requests that already failed or were answered throws nothing', async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown): void => {
      uncaught.push(error);
    };
    process.prependListener('uncaughtException', onUncaught);
    try {
      const base = await serve((req, res) => {
        if (req.url === '/cut') req.socket.destroy();
        else res.end('ok');
      });
      for (let i = 0; i < 20; i++) {
        const controller = new AbortController();
        const failing = fetcher.get(`${base}/cut`, { headers: {}, signal: controller.signal });
        const answered = fetcher.get(`${base}/ok`, { headers: {}, signal: controller.signal });
        // Aborted the moment the first one fails: it is between its error and its close.
        await failing.then(
          () => controller.abort(),
          () => controller.abort(),
        );
        await answered.then(
          (r) => r.discard(),
          () => undefined,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    expect(uncaught).toEqual([]);
  });

  it('reuses one kept-alive connection for requests in sequence', async () => {
    const sockets = new Set<unknown>();
    const base = await serve((req, res) => {
      sockets.add(req.socket);
      res.end('x');
    });
    for (let i = 0; i < 3; i++) {
      const response = await fetcher.get(`${base}/${i}`, { headers: {}, signal: signal() });
      expect(await readAll(response.body)).toBe('x');
    }
    expect(sockets.size).toBe(1);
  });

  it('preconnect opens the connection the first GET then goes over', async () => {
    const server = createHttpServer();
    const { connections, carriedBy } = await preconnectThenGet(server, 'connection', 'http', {});
    expect(connections).toBe(1);
    expect(carriedBy).toEqual([0]);
  });

  it('preconnect over https: the handshake is done before the GET, which goes over it', async () => {
    const pki = makeTestPki();
    const server = createHttpsServer({ cert: pki.certPem, key: pki.keyPem });
    const { connections, carriedBy } = await preconnectThenGet(
      server,
      'secureConnection',
      'https',
      {
        ca: pki.caPem,
      },
    );
    expect(connections).toBe(1);
    expect(carriedBy).toEqual([0]);
  });

  it('a body cut off mid-way is a transient NETWORK error while it is read', async () => {
    const base = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('only part');
      setImmediate(() => res.socket?.destroy());
    });
    const response = await fetcher.get(`${base}/`, { headers: {}, signal: signal() });
    await expect(readAll(response.body)).rejects.toMatchObject({
      code: 'NETWORK',
      transient: true,
    });
  });

  it('rejects with NETWORK ETIMEDOUT when the TLS handshake does not finish in time', async () => {
    const silent: Socket[] = [];
    const tcp = createTcpServer((socket) => silent.push(socket)); // accepts, never answers
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    const port = (tcp.address() as AddressInfo).port;
    try {
      const quick = createHttpFetcher({ connectTimeoutMs: 150 });
      await expect(
        quick.get(`https://127.0.0.1:${port}/`, { headers: {}, signal: signal() }),
      ).rejects.toMatchObject({
        code: 'NETWORK',
        transient: true,
        details: { errno: 'ETIMEDOUT' },
      });
    } finally {
      for (const s of silent) s.destroy();
      await new Promise((resolve) => tcp.close(resolve));
    }
  });

  it('an abort while the body is read is ABORTED', async () => {
    const base = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('first');
    });
    const controller = new AbortController();
    const response = await fetcher.get(`${base}/`, { headers: {}, signal: controller.signal });
    const reading = readAll(response.body);
    controller.abort();
    await expect(reading).rejects.toMatchObject({ code: 'ABORTED' });
  });
});

describe('headerOf (a header from the raw list, as node would give it)', () => {
  const raw = [
    'ETag',
    '"a"',
    'X-Note',
    'one',
    'etag',
    '"b"',
    'x-note',
    'two',
    'Content-Range',
    'r1',
  ];

  it('matches names case-insensitively and answers undefined when absent', () => {
    expect(headerOf(raw, 'content-range')).toBe('r1');
    expect(headerOf(raw, 'location')).toBeUndefined();
  });

  it('keeps the first of a repeated single-valued header and joins any other', () => {
    expect(headerOf(raw, 'etag')).toBe('"a"');
    expect(headerOf(raw, 'x-note')).toBe('one, two');
  });

  it('agrees with IncomingMessage.headers on a real response', async () => {
    const base = await serve((_req, res) => {
      res.setHeader('x-twice', ['a', 'b']);
      res.setHeader('etag', '"e"');
      res.end('ok');
    });
    const response = await fetcher.get(`${base}/x`, { headers: {}, signal: signal() });
    expect(response.header('X-Twice')).toBe('a, b');
    expect(response.header('etag')).toBe('"e"');
    expect(response.header('content-length')).toBe('2');
    expect(await readAll(response.body)).toBe('ok');
  });
});

/**
 * Preconnects a fetcher to `server`, waits for the connection (`event`: TCP accepted or TLS
 * done), then GETs the manifest: how many such connections the server saw, and for each
 * request the index of the connection it came on.
 */
async function preconnectThenGet(
  server: HttpServer,
  event: 'connection' | 'secureConnection',
  scheme: 'http' | 'https',
  tls: { ca?: string },
): Promise<{ connections: number; carriedBy: number[] }> {
  const accepted: Socket[] = [];
  const carriedBy: number[] = [];
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    carriedBy.push(accepted.indexOf(req.socket));
    res.end('x');
  });
  server.on(event, (socket: Socket) => accepted.push(socket));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const base = `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const warm = createHttpFetcher({ connectTimeoutMs: 2000, ...tls });
    warm.preconnect(`${base}/api/updates/manifest`);
    await once(server, event);
    const response = await warm.get(`${base}/api/updates/manifest`, {
      headers: {},
      signal: signal(),
      acceptGzip: true,
    });
    expect(await readAll(response.body)).toBe('x');
    return { connections: accepted.length, carriedBy };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
