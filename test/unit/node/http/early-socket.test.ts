/**
 * A TCP connection opened before the updater loaded (src/cli/early-connect.ts) as the warm
 * connection (src/node/http/warm-connections.ts `open(…, early)`) and through the fetcher's
 * `preconnect(url, early)` (http-fetcher.ts): the first request goes over it, https included
 * (the agent's own handshake over it, with its trust and server name), and one to another
 * origin, or one that failed, is never used. Servers count the connections they accept.
 */
import { once } from 'node:events';
import { Agent, createServer, get, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  Agent as HttpsAgent,
  createServer as createHttpsServer,
  get as httpsGet,
} from 'node:https';
import { connect, type AddressInfo, type Server, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpFetcher, type EarlySocket } from '#node/http/index.js';
import { WarmConnections } from '#node/http/warm-connections.js';
import { makeTestPki } from '#test/tls-cert.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Counted {
  readonly port: number;
  /** TCP connections accepted, in order. */
  readonly accepted: Socket[];
  /** For each request, the index of the TCP connection it came on. */
  readonly carriedBy: number[];
}

async function counted(server: Server, secure = false): Promise<Counted> {
  const accepted: Socket[] = [];
  const carriedBy: number[] = [];
  server.on('connection', (socket: Socket) => accepted.push(socket));
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const tcp = secure ? (req.socket as TLSSocket & { _parent?: Socket })._parent : req.socket;
    carriedBy.push(accepted.findIndex((s) => s === tcp || s === req.socket));
    res.end('ok');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(async () => {
    (server as Server & { closeAllConnections?: () => void }).closeAllConnections?.();
    for (const socket of accepted) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return { port: (server.address() as AddressInfo).port, accepted, carriedBy };
}

function text(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (body += chunk));
    res.on('end', () => resolve(body));
    res.on('error', reject);
  });
}

/** An EarlySocket over a connection opened now (still connecting when handed over). */
function early(host: string, port: number, secure = false): EarlySocket & { socket: Socket } {
  const socket = connect({ host, port });
  let taken = false;
  return {
    secure,
    host,
    port,
    socket,
    adopt: () => {
      if (taken || socket.destroyed) return undefined;
      taken = true;
      return socket;
    },
  };
}

describe('an early socket as the warm connection', () => {
  it('http: the first request goes over it, still connecting when handed over', async () => {
    const server = await counted(createServer());
    const agent = new Agent({ keepAlive: true });
    cleanups.push(() => agent.destroy());
    const warm = new WarmConnections(agent);
    warm.open('127.0.0.1', server.port, early('127.0.0.1', server.port).socket);
    const body = await new Promise<string>((resolve, reject) => {
      get({ host: '127.0.0.1', port: server.port, path: '/', agent }, (res) => {
        text(res).then(resolve, reject);
      }).on('error', reject);
    });
    expect(body).toBe('ok');
    expect(server.accepted).toHaveLength(1);
    expect(server.carriedBy).toEqual([0]);
  });

  it('https: the agent’s own handshake runs over it, with its trust and server name', async () => {
    const pki = makeTestPki();
    const servernames: (string | false)[] = [];
    const tls = createHttpsServer({ cert: pki.certPem, key: pki.keyPem });
    tls.on('secureConnection', (s: TLSSocket) => servernames.push(s.servername ?? false));
    const server = await counted(tls, true);
    const agent = new HttpsAgent({ keepAlive: true, ca: pki.caPem });
    cleanups.push(() => agent.destroy());
    const warm = new WarmConnections(agent);
    warm.open('localhost', server.port, early('127.0.0.1', server.port, true).socket);
    const get2 = (): Promise<string> =>
      new Promise((resolve, reject) => {
        httpsGet({ hostname: 'localhost', port: server.port, path: '/', agent }, (res) => {
          text(res).then(resolve, reject);
        }).on('error', reject);
      });
    expect(await get2()).toBe('ok');
    expect(await get2()).toBe('ok');
    expect(server.accepted).toHaveLength(1);
    expect(servernames).toEqual(['localhost']);
  });

  it('https: a certificate the agent does not trust fails the request over it', async () => {
    const pki = makeTestPki();
    const server = await counted(createHttpsServer({ cert: pki.certPem, key: pki.keyPem }), true);
    const agent = new HttpsAgent({ keepAlive: true, ca: makeTestPki().caPem });
    cleanups.push(() => agent.destroy());
    const warm = new WarmConnections(agent);
    warm.open('localhost', server.port, early('127.0.0.1', server.port, true).socket);
    const failed = new Promise<unknown>((resolve) => {
      httpsGet({ hostname: 'localhost', port: server.port, path: '/', agent }, () => {
        resolve('answered');
      }).on('error', resolve);
    });
    expect((await failed) as { code?: string }).toHaveProperty(
      'code',
      expect.stringMatching(/CERT|ISSUER|SIGNATURE/),
    );
    expect(server.carriedBy).toEqual([]);
  });
});

describe('the fetcher’s preconnect with an early socket', () => {
  const signal = (): AbortSignal => AbortSignal.timeout(5000);

  async function manifestOver(
    fetcher: ReturnType<typeof createHttpFetcher>,
    base: string,
  ): Promise<void> {
    const response = await fetcher.get(`${base}/api/updates/manifest`, {
      headers: {},
      signal: signal(),
      acceptGzip: true,
    });
    response.discard();
  }

  it('takes one opened to the base URL’s origin', async () => {
    const server = await counted(createServer());
    const base = `http://127.0.0.1:${server.port}`;
    const fetcher = createHttpFetcher({ connectTimeoutMs: 2000 });
    fetcher.preconnect(`${base}/v1`, early('127.0.0.1', server.port));
    await manifestOver(fetcher, base);
    expect(server.accepted).toHaveLength(1);
    expect(server.carriedBy).toEqual([0]);
  });

  it('closes one opened to another origin and opens its own', async () => {
    const registry = await counted(createServer());
    const elsewhere = await counted(createServer());
    const base = `http://127.0.0.1:${registry.port}`;
    const stray = early('127.0.0.1', elsewhere.port);
    const fetcher = createHttpFetcher({ connectTimeoutMs: 2000 });
    fetcher.preconnect(`${base}/v1`, stray);
    await manifestOver(fetcher, base);
    expect(stray.socket.destroyed).toBe(true);
    expect(registry.accepted).toHaveLength(1);
    expect(registry.carriedBy).toEqual([0]);
  });

  it('opens its own where the early one failed', async () => {
    const server = await counted(createServer());
    const base = `http://127.0.0.1:${server.port}`;
    const failed = early('127.0.0.1', server.port);
    failed.socket.destroy();
    const fetcher = createHttpFetcher({ connectTimeoutMs: 2000 });
    fetcher.preconnect(`${base}/v1`, failed);
    await manifestOver(fetcher, base);
    expect(server.carriedBy).toEqual([server.accepted.length - 1]);
  });
});
