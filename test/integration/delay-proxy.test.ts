/**
 * bench/delay-proxy.ts really shapes loopback: each request-response costs one RTT (and a new
 * connection one more, its handshake), bytes take their size over the rate, a cap shared by
 * the proxy is split between parallel connections, and a reader that stops stops the proxy
 * reading from the server (bounded memory). Small RTTs and sizes keep it to a few seconds;
 * the bounds are generous for a shared, noisy machine, yet each fails if the shaping is gone.
 */
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseBitsPerSecond } from '../../bench/delay-link.js';
import { startDelayProxy, type DelayProxy, type LinkEvent } from '../../bench/delay-proxy.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function listen(onConnection: (socket: Socket) => void): Promise<number> {
  const server: Server = createServer(onConnection);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => sockets.add(s));
  cleanups.push(
    () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function proxyTo(
  port: number,
  rttMs: number,
  bitsPerSecond = 0,
  share: 'proxy' | 'connection' = 'proxy',
): Promise<DelayProxy> {
  const proxy = await startDelayProxy({
    target: { host: '127.0.0.1', port },
    rttMs,
    bitsPerSecond,
    share,
  });
  cleanups.push(() => proxy.close());
  return proxy;
}

async function connected(port: number): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port });
  cleanups.push(() => {
    socket.destroy();
    return Promise.resolve();
  });
  await once(socket, 'connect');
  return socket;
}

/** Reads everything the server sends until it ends; resolves with the byte count. */
async function drain(socket: Socket): Promise<number> {
  let bytes = 0;
  socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
  await once(socket, 'end');
  return bytes;
}

/** A server that sends `bytes` random-ish bytes to each connection, then ends it. */
function sender(bytes: number): (socket: Socket) => void {
  return (socket) => {
    socket.on('error', () => undefined);
    socket.end(Buffer.alloc(bytes, 7));
  };
}

describe('delay proxy', () => {
  it('costs one RTT per request-response, plus one for the handshake', async () => {
    const rtt = 30;
    const rounds = 12;
    const port = await listen((socket) => {
      socket.on('error', () => undefined);
      socket.on('data', (chunk: Buffer) => socket.write(chunk));
    });
    const proxy = await proxyTo(port, rtt);
    const started = performance.now();
    const socket = await connected(proxy.port);
    for (let i = 0; i < rounds; i++) {
      const answer = once(socket, 'data');
      socket.write(`ping ${i}\n`);
      const [chunk] = (await answer) as [Buffer];
      expect(chunk.toString()).toBe(`ping ${i}\n`);
    }
    const elapsed = performance.now() - started;
    // Each hop may be delivered up to 1 ms early (timer rounding): 2 ms per round trip.
    expect(elapsed).toBeGreaterThanOrEqual((rounds + 1) * rtt - 2 * (rounds + 1));
    expect(elapsed).toBeLessThan(2 * rounds * rtt);
    expect(proxy.stats()).toMatchObject({ connections: 1, turns: rounds });
  });

  it('takes the bytes over the rate', async () => {
    const bytes = 256 * 1024;
    const bitsPerSecond = parseBitsPerSecond('8mbit');
    const seconds = (bytes * 8) / bitsPerSecond;
    const port = await listen(sender(bytes));
    const proxy = await proxyTo(port, 20, bitsPerSecond);
    const started = performance.now();
    const received = await drain(await connected(proxy.port));
    const elapsed = performance.now() - started;
    expect(received).toBe(bytes);
    expect(elapsed).toBeGreaterThanOrEqual(seconds * 1000);
    expect(elapsed).toBeLessThan(seconds * 1000 * 2 + 200);
    expect(proxy.stats().bytesDown).toBe(bytes);
  });

  it('splits a cap shared by the proxy between connections, not one given to each', async () => {
    const bytes = 128 * 1024;
    const bitsPerSecond = parseBitsPerSecond('8mbit');
    const oneAlone = ((bytes * 8) / bitsPerSecond) * 1000;
    const port = await listen(sender(bytes));
    const timeTwo = async (share: 'proxy' | 'connection'): Promise<number> => {
      const proxy = await proxyTo(port, 20, bitsPerSecond, share);
      const started = performance.now();
      const sockets = await Promise.all([connected(proxy.port), connected(proxy.port)]);
      const received = await Promise.all(sockets.map(drain));
      expect(received).toEqual([bytes, bytes]);
      return performance.now() - started;
    };
    const shared = await timeTwo('proxy');
    const own = await timeTwo('connection');
    expect(shared).toBeGreaterThanOrEqual(2 * oneAlone);
    expect(own).toBeGreaterThanOrEqual(oneAlone);
    expect(own).toBeLessThan(shared * 0.8);
  });

  it('stops reading from the server while the client does not read', async () => {
    const total = 64 * 1024 * 1024;
    const port = await listen(sender(total));
    const proxy = await proxyTo(port, 20);
    const socket = await connected(proxy.port);
    socket.pause();
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Without backpressure the proxy would read all 64 MiB from loopback in this time; with
    // it, what it read is the wire's 4 MiB plus the kernel's socket buffers.
    expect(proxy.stats().bytesDown).toBeLessThan(24 * 1024 * 1024);
    expect(proxy.stats().bytesDown).toBeGreaterThan(0);
    socket.resume();
    expect(await drain(socket)).toBeGreaterThan(0);
  });

  it('tells its trace each connection and each delivery, in order, a round trip apart', async () => {
    const rtt = 30;
    const port = await listen((socket) => {
      socket.on('error', () => undefined);
      socket.on('data', (chunk: Buffer) => socket.write(chunk));
    });
    const events: LinkEvent[] = [];
    const proxy = await startDelayProxy({
      target: { host: '127.0.0.1', port },
      rttMs: rtt,
      trace: (e) => events.push(e),
    });
    cleanups.push(() => proxy.close());
    const socket = await connected(proxy.port);
    for (const word of ['one\n', 'two\n']) {
      const answer = once(socket, 'data');
      socket.write(word);
      await answer;
    }
    expect(events.map((e) => [e.conn, e.kind, e.bytes])).toEqual([
      [0, 'open', 0],
      [0, 'up', 4],
      [0, 'down', 4],
      [0, 'up', 4],
      [0, 'down', 4],
    ]);
    const at = events.map((e) => e.at);
    // Up after the handshake and half the RTT; each answer half an RTT after its request.
    expect((at[1] ?? 0) - (at[0] ?? 0)).toBeGreaterThanOrEqual(rtt - 1);
    expect((at[2] ?? 0) - (at[1] ?? 0)).toBeGreaterThanOrEqual(rtt / 2 - 1);
    expect((at[4] ?? 0) - (at[2] ?? 0)).toBeGreaterThanOrEqual(rtt - 2);
  });

  it('parses bandwidths as tc writes them', () => {
    expect(parseBitsPerSecond('100mbit')).toBe(100_000_000);
    expect(parseBitsPerSecond('2.5gbit')).toBe(2_500_000_000);
    expect(parseBitsPerSecond('800kbit')).toBe(800_000);
    expect(parseBitsPerSecond('1200')).toBe(1200);
    expect(() => parseBitsPerSecond('fast')).toThrow(/bandwidth/);
  });
});
