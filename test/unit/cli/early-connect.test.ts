/**
 * The launcher's early connection (src/cli/early-connect.ts): opened only where the run will
 * surely connect there first and directly, handed over once, closed by a failure or when no run
 * takes it. A loopback server counts what reaches it.
 */
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  earlySocket,
  earlyTarget,
  openEarlyConnection,
  takeEarlyConnection,
} from '#cli/early-connect.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function listening(): Promise<{ server: Server; port: number; accepted: Socket[] }> {
  const accepted: Socket[] = [];
  const server = createServer((socket) => accepted.push(socket));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(async () => {
    for (const socket of accepted) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return { server, port: (server.address() as AddressInfo).port, accepted };
}

const base = ['--dir', '/tmp/d', '--pubkey', 'ab'];

describe('earlyTarget', () => {
  it('is the base URL’s origin for check and update, default ports included', () => {
    expect(
      earlyTarget(['update', '--base-url', 'http://reg.example:8080/v1', ...base], {}),
    ).toEqual({ secure: false, host: 'reg.example', port: 8080 });
    expect(earlyTarget([...base, 'check', '--base-url=https://reg.example'], {})).toEqual({
      secure: true,
      host: 'reg.example',
      port: 443,
    });
    expect(earlyTarget(['update', '--base-url', 'http://[::1]/x', ...base], {})).toEqual({
      secure: false,
      host: '::1',
      port: 80,
    });
  });

  it('is nothing for a command that fetches nothing, or a line the CLI would refuse', () => {
    const url = ['--base-url', 'http://127.0.0.1:1'];
    for (const command of ['status', 'rollback', 'verify', 'confirm', 'serve']) {
      expect(earlyTarget([command, ...url, ...base], {})).toBeUndefined();
    }
    expect(earlyTarget(['update', ...url, '--bogus', ...base], {})).toBeUndefined();
    expect(earlyTarget(['update', 'check', ...url, ...base], {})).toBeUndefined();
    expect(earlyTarget(['update', ...base], {})).toBeUndefined();
    expect(earlyTarget(['update', '--base-url', 'not a url', ...base], {})).toBeUndefined();
    expect(earlyTarget(['update', '--base-url', 'ftp://h/x', ...base], {})).toBeUndefined();
    // User info: node sends it as Basic auth on its own connection; not guessed at here.
    expect(earlyTarget(['update', '--base-url', 'http://u:p@h/x', ...base], {})).toBeUndefined();
  });

  it('is nothing when a proxy variable is set, unless --no-proxy', () => {
    const argv = ['update', '--base-url', 'http://h:81/', ...base];
    for (const name of ['http_proxy', 'HTTPS_PROXY', 'ALL_PROXY', 'all_proxy', 'HTTP_PROXY']) {
      expect(earlyTarget(argv, { [name]: 'http://proxy:3128' })).toBeUndefined();
    }
    expect(earlyTarget(argv, { http_proxy: '  ' })).toEqual({ secure: false, host: 'h', port: 81 });
    expect(earlyTarget([...argv, '--no-proxy'], { http_proxy: 'http://proxy:3128' })).toEqual({
      secure: false,
      host: 'h',
      port: 81,
    });
  });
});

describe('earlySocket', () => {
  it('connects at once and hands the socket over exactly once', async () => {
    const { server, port } = await listening();
    const early = earlySocket({ secure: false, host: '127.0.0.1', port });
    await once(server, 'connection');
    const socket = early.adopt();
    expect(socket).toBeDefined();
    expect(socket?.destroyed).toBe(false);
    expect(early.adopt()).toBeUndefined();
    socket?.destroy();
  });

  it('a failure only closes it: nothing to hand over, nothing thrown', async () => {
    const { server, port } = await listening();
    await new Promise((resolve) => server.close(resolve));
    let socket: Socket | undefined;
    const early = earlySocket({ secure: false, host: '127.0.0.1', port }, (host, p) => {
      socket = connect({ host, port: p });
      return socket;
    });
    // Not once(): that rejects on the 'error' the early socket's own listener takes.
    await new Promise((resolve) => socket?.on('close', resolve));
    expect(early.adopt()).toBeUndefined();
  });

  it('closes a connection no run took within its idle time', async () => {
    const { server, port } = await listening();
    const opened: Socket[] = [];
    earlySocket(
      { secure: false, host: '127.0.0.1', port },
      (host, p) => {
        const socket = connect({ host, port: p });
        opened.push(socket);
        return socket;
      },
      20,
    );
    const [accepted] = (await once(server, 'connection')) as [Socket];
    await once(accepted, 'close');
    expect(opened[0]?.destroyed).toBe(true);
  });
});

describe('the launcher and the bundle', () => {
  it('the bundle takes the connection the launcher opened, once; nothing is sent on it', async () => {
    const { server, port, accepted } = await listening();
    openEarlyConnection(['update', '--base-url', `http://127.0.0.1:${port}/v1`, ...base], {});
    await once(server, 'connection');
    const early = takeEarlyConnection();
    expect(early).toMatchObject({ secure: false, host: '127.0.0.1', port });
    expect(takeEarlyConnection()).toBeUndefined();
    expect(accepted[0]?.bytesRead).toBe(0);
    early?.adopt()?.destroy();
  });

  it('opens nothing for a run that will not connect there first', async () => {
    const { port, accepted } = await listening();
    openEarlyConnection(['status', '--base-url', `http://127.0.0.1:${port}/v1`, ...base], {});
    expect(takeEarlyConnection()).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(accepted).toHaveLength(0);
  });
});
