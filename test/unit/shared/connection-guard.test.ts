import { createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionGuard } from '#shared/connection-guard.js';

let server: Server | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A server whose handler never answers, so each request keeps its socket busy. */
let requests = 0;
async function stuckServer(
  cap: number,
  perAddress = cap,
): Promise<{ port: number; guard: ConnectionGuard }> {
  const guard = new ConnectionGuard(cap, undefined, perAddress);
  requests = 0;
  server = createServer(() => {
    requests += 1;
  });
  guard.attach(server);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, guard };
}

function send(
  port: number,
  text: string,
  localAddress = '127.0.0.1',
): Promise<{ socket: Socket; reply: Promise<string> }> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress }, () => {
      socket.write(text);
      let got = '';
      socket.setEncoding('utf8');
      socket.on('data', (c: string) => (got += c));
      const reply = new Promise<string>((done) => socket.on('close', () => done(got)));
      resolve({ socket, reply });
    });
    socket.on('error', () => undefined);
    sockets.push(socket);
  });
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i += 1) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}

describe('ConnectionGuard (docs/SERVER.md §Limits)', () => {
  it('refuses a newcomer with 503 SERVER_BUSY when every socket is being answered', async () => {
    const { port, guard } = await stuckServer(2);
    await send(port, 'GET /a HTTP/1.1\r\nHost: x\r\n\r\n');
    await send(port, 'GET /b HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => requests === 2);
    const third = await send(port, 'GET /c HTTP/1.1\r\nHost: x\r\n\r\n');
    const text = await third.reply;
    expect(text).toMatch(/^HTTP\/1\.1 503 /);
    expect(text).toContain('Retry-After: 1');
    expect(text).toContain('"code":"SERVER_BUSY"');
    expect(guard.counters).toMatchObject({ evicted: 0, refused: 1 });
  });

  it('evicts a socket still receiving its body before refusing anyone', async () => {
    const { port, guard } = await stuckServer(2);
    await send(port, 'GET /a HTTP/1.1\r\nHost: x\r\n\r\n');
    const trickle = await send(
      port,
      'POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc',
    );
    await until(() => requests === 2);
    await send(port, 'GET /c HTTP/1.1\r\nHost: x\r\n\r\n');
    await trickle.reply;
    expect(guard.counters).toMatchObject({ evicted: 1, refused: 0 });
  });

  const STUCK = 'GET /a HTTP/1.1\r\nHost: x\r\n\r\n';
  const closedSoon = (w: { socket: Socket }): Promise<void> =>
    w.socket.destroyed
      ? Promise.resolve()
      : new Promise((done) => w.socket.once('close', () => done()));

  it('at the cap, refuses an address holding its share, all answering, not another', async () => {
    const { port, guard } = await stuckServer(4, 2);
    await send(port, STUCK, '127.0.0.2');
    await send(port, STUCK, '127.0.0.2');
    await send(port, STUCK, '127.0.0.3');
    const idle = await send(port, '', '127.0.0.3');
    await until(() => requests === 3);
    // .3 has an idle socket, but .2 may not take it: .2 holds its share.
    const third = await send(port, STUCK, '127.0.0.2');
    const text = await third.reply;
    expect(text).toMatch(/^HTTP\/1\.1 503 /);
    expect(text).toContain('X-Content-Type-Options: nosniff');
    expect(text).toContain('"code":"SERVER_BUSY"');
    expect(text).toContain('this address is at its connection limit');
    expect(idle.socket.destroyed).toBe(false);
    // Another address gets in (the idle socket makes room).
    await send(port, STUCK, '127.0.0.4');
    await closedSoon(idle);
    await until(() => requests === 4);
    expect(guard.counters).toEqual({
      evicted: 1,
      refused: 0,
      evicted_per_address: 0,
      refused_per_address: 1,
    });
  });

  it('at the cap, makes room among the address’s own sockets, oldest idle first', async () => {
    const { port, guard } = await stuckServer(4, 2);
    const oldest = await send(port, '', '127.0.0.1');
    const ownIdle = await send(port, '', '127.0.0.2');
    await send(port, STUCK, '127.0.0.2');
    await send(port, STUCK, '127.0.0.3');
    await until(() => requests === 2);
    await send(port, STUCK, '127.0.0.2');
    await closedSoon(ownIdle);
    await until(() => requests === 3);
    expect(oldest.socket.destroyed).toBe(false);
    expect(guard.counters).toMatchObject({ evicted: 0, evicted_per_address: 1 });
  });

  it('lets an address pass its share below the cap, and takes from it first at the cap', async () => {
    const { port, guard } = await stuckServer(4, 2);
    const oldest = await send(port, '', '127.0.0.1');
    const heavy = [];
    for (let i = 0; i < 3; i += 1) heavy.push(await send(port, '', '127.0.0.2'));
    await until(() => guard.size === 4);
    expect(guard.counters).toMatchObject({ evicted: 0, evicted_per_address: 0 });
    await send(port, STUCK, '127.0.0.3');
    await closedSoon(heavy[0] as { socket: Socket });
    await until(() => requests === 1);
    expect(oldest.socket.destroyed).toBe(false);
    expect(guard.counters).toMatchObject({ evicted: 0, evicted_per_address: 1 });
  });

  it('lets a request through under the cap', async () => {
    const guard = new ConnectionGuard(4);
    server = createServer((_q, r) => r.end('ok'));
    guard.attach(server);
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const status = await new Promise<number>((resolve) => {
      request({ port, host: '127.0.0.1', path: '/' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).end();
    });
    expect(status).toBe(200);
  });
});
