/**
 * Warm connections (src/node/http/warm-connections.ts): a connection opened before the first
 * request is the one that request goes over, and one that is dead or unused by then is never
 * handed out. The server counts the connections it accepts and names the one each request came
 * on, so the tests assert which connection carried what, not how long anything took.
 */
import { once } from 'node:events';
import { Agent, createServer, get, type Server } from 'node:http';
import {
  Agent as HttpsAgent,
  createServer as createHttpsServer,
  get as httpsGet,
} from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WarmConnections } from '#node/http/warm-connections.js';
import { makeTestPki, type TestPki } from '#test/tls-cert.js';

interface Counted {
  readonly server: Server;
  readonly port: number;
  /** Each accepted connection, in order. */
  readonly accepted: Socket[];
  /** For each request, the index of the connection it came on. */
  readonly carriedBy: number[];
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function countingServer(onConnection?: (socket: Socket) => void): Promise<Counted> {
  const accepted: Socket[] = [];
  const carriedBy: number[] = [];
  const server = createServer((req, res) => {
    carriedBy.push(accepted.indexOf(req.socket));
    res.end('ok');
  });
  server.on('connection', (socket: Socket) => {
    accepted.push(socket);
    onConnection?.(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { server, port: (server.address() as AddressInfo).port, accepted, carriedBy };
}

function agentWithWarm(idleMs?: number): { agent: Agent; warm: WarmConnections } {
  const agent = new Agent({ keepAlive: true });
  cleanups.push(() => agent.destroy());
  return { agent, warm: new WarmConnections(agent, idleMs) };
}

function getText(agent: Agent, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve(text));
    }).on('error', reject);
  });
}

describe('warm connections', () => {
  it('carries the first request over the connection opened before it', async () => {
    const counted = await countingServer();
    const { agent, warm } = agentWithWarm();
    warm.open('127.0.0.1', counted.port);
    await once(counted.server, 'connection');
    expect(warm.waiting).toBe(1);
    expect(await getText(agent, counted.port)).toBe('ok');
    expect(counted.accepted).toHaveLength(1);
    expect(counted.carriedBy).toEqual([0]);
    expect(warm.waiting).toBe(0);
  });

  it('hands over a connection still connecting: the request waits for it, not a second one', async () => {
    const counted = await countingServer();
    const { agent, warm } = agentWithWarm();
    warm.open('127.0.0.1', counted.port);
    expect(await getText(agent, counted.port)).toBe('ok');
    expect(counted.accepted).toHaveLength(1);
    expect(counted.carriedBy).toEqual([0]);
  });

  it('opens one warm connection per origin, however often asked', async () => {
    const counted = await countingServer();
    const { agent, warm } = agentWithWarm();
    warm.open('127.0.0.1', counted.port);
    warm.open('127.0.0.1', counted.port);
    expect(warm.waiting).toBe(1);
    await getText(agent, counted.port);
    // The second request reuses the kept-alive connection: still one.
    await getText(agent, counted.port);
    expect(counted.accepted).toHaveLength(1);
    expect(counted.carriedBy).toEqual([0, 0]);
  });

  it('drops a warm connection the server closed: the request opens its own', async () => {
    const counted = await countingServer((socket) => {
      if (counted.accepted.length === 1) socket.destroy();
    });
    const { agent, warm } = agentWithWarm();
    warm.open('127.0.0.1', counted.port);
    await vi.waitFor(() => expect(warm.waiting).toBe(0));
    expect(await getText(agent, counted.port)).toBe('ok');
    expect(counted.accepted).toHaveLength(2);
    expect(counted.carriedBy).toEqual([1]);
  });

  it('closes a warm connection unused for its idle time', async () => {
    const counted = await countingServer();
    const { agent, warm } = agentWithWarm(20);
    warm.open('127.0.0.1', counted.port);
    const [first] = (await once(counted.server, 'connection')) as [Socket];
    await once(first, 'close');
    expect(warm.waiting).toBe(0);
    expect(await getText(agent, counted.port)).toBe('ok');
    expect(counted.carriedBy).toEqual([1]);
  });

  it('drops a warm connection that could not connect: the request fails on its own', async () => {
    const counted = await countingServer();
    const port = counted.port;
    counted.server.closeAllConnections();
    await new Promise((resolve) => counted.server.close(resolve));
    const { agent, warm } = agentWithWarm();
    warm.open('127.0.0.1', port);
    await vi.waitFor(() => expect(warm.waiting).toBe(0));
    await expect(getText(agent, port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('https: the first request goes over the warm connection, checked by the agent’s trust', async () => {
    const pki = makeTestPki();
    const tls = await tlsServer(pki);
    const agent = httpsAgent(pki.caPem);
    const warm = new WarmConnections(agent);
    warm.open('localhost', tls.port);
    await once(tls.server, 'secureConnection');
    expect(await httpsText(agent, 'localhost', tls.port)).toBe('ok');
    expect(await httpsText(agent, 'localhost', tls.port)).toBe('ok');
    expect(tls.handshakes).toHaveLength(1);
    expect(tls.carriedBy).toEqual([0, 0]);
    // The server name node derives from the Host header, as the request's own connection has.
    expect(tls.servernames).toEqual(['localhost']);
  });

  it('https: a warm handshake the agent’s trust refuses is dropped; the request fails itself', async () => {
    const tls = await tlsServer(makeTestPki());
    const agent = httpsAgent(makeTestPki().caPem); // another authority
    const warm = new WarmConnections(agent);
    warm.open('127.0.0.1', tls.port);
    await vi.waitFor(() => expect(warm.waiting).toBe(0));
    await expect(httpsText(agent, '127.0.0.1', tls.port)).rejects.toMatchObject({
      code: expect.stringMatching(/CERT|SIGNATURE|ISSUER/) as unknown as string,
    });
    expect(tls.handshakes).toHaveLength(0);
    expect(tls.carriedBy).toEqual([]);
  });
});

interface TlsCounted {
  readonly server: ReturnType<typeof createHttpsServer>;
  readonly port: number;
  /** Each finished handshake, in order, and the server name the client sent in it. */
  readonly handshakes: TLSSocket[];
  readonly servernames: (string | false)[];
  readonly carriedBy: number[];
}

async function tlsServer(pki: TestPki): Promise<TlsCounted> {
  const handshakes: TLSSocket[] = [];
  const servernames: (string | false)[] = [];
  const carriedBy: number[] = [];
  const server = createHttpsServer({ cert: pki.certPem, key: pki.keyPem }, (req, res) => {
    carriedBy.push(handshakes.indexOf(req.socket as TLSSocket));
    res.end('ok');
  });
  server.on('secureConnection', (socket: TLSSocket) => {
    handshakes.push(socket);
    servernames.push(socket.servername ?? false);
  });
  // Every interface: `localhost` may resolve to ::1 or 127.0.0.1.
  server.listen(0);
  await once(server, 'listening');
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    handshakes,
    servernames,
    carriedBy,
  };
}

function httpsAgent(ca: string): HttpsAgent {
  const agent = new HttpsAgent({ keepAlive: true, ca });
  cleanups.push(() => agent.destroy());
  return agent;
}

function httpsText(agent: HttpsAgent, host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    httpsGet({ hostname: host, port, path: '/', agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve(text));
    }).on('error', reject);
  });
}
