/**
 * `updater serve` under a local socket flood (docs/SECURITY.md §Web window, socket limits):
 * sockets that connect and send nothing, and sockets that send a head and trickle the body,
 * opened again as fast as the window closes them. The window closes them by its head and
 * request timeouts and evicts them at its connection cap, so every page load is answered and
 * the scheduled run installs the release while the flood goes on.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { get } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '#scripts/build-app.mjs';
import { startServer, type RunningServer } from '#server/compose/start-server.js';
import { runCli, type CliIo } from '#cli/run-cli.js';
import type { AppStatus } from '#preload/ipc-contract.js';

let tmp: string;
let appDir: string;
let server: RunningServer;
let machineKey: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'updater-serve-sockets-'));
  appDir = (await buildApp({ outDir: join(tmp, 'app'), only: ['renderer', 'web'] })).outDir;
  server = await startServer({ dev: true, simulate: false });
  await server.publish({
    registry_version: '1.0.0',
    artifacts: [{ name: 'a.txt', content: new TextEncoder().encode('hello\n') }],
  });
  const minted = await fetch(`${server.url}/api/demo-key/mint`, { method: 'POST' });
  machineKey = ((await minted.json()) as { machine_key: string }).machine_key;
});

afterAll(async () => {
  await server.close();
  await rm(tmp, { recursive: true, force: true });
});

function capture(): CliIo & { firstLine: Promise<string> } {
  let resolveFirst: (line: string) => void = () => undefined;
  const firstLine = new Promise<string>((resolve) => (resolveFirst = resolve));
  return {
    firstLine,
    stdout: (text) => resolveFirst(text),
    stderr: () => undefined,
    stderrIsTty: false,
    columns: 80,
    nowMs: () => Date.now(),
  };
}

/** Keeps `count` abusive sockets open against `port`, each reopened when the server closes it. */
function flood(port: number, count: number, trickle: boolean) {
  let running = true;
  let closedByServer = 0;
  const open = new Set<Socket>();
  const one = (): void => {
    if (!running) return;
    const socket = connect(port, '127.0.0.1');
    open.add(socket);
    let timer: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      if (!trickle) return;
      socket.write('POST /api/bridge/getStatus HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      socket.write('Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n');
      timer = setInterval(() => socket.write('x'), 200);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      open.delete(socket);
      if (running) {
        closedByServer += 1;
        setTimeout(one, 10);
      }
    });
  };
  for (let i = 0; i < count; i++) one();
  return {
    get closedByServer() {
      return closedByServer;
    },
    stop() {
      running = false;
      for (const socket of open) socket.destroy();
    },
  };
}

/** GET / on a fresh connection (as a page load): its status, or 0 when it got none. */
function pageLoad(origin: string, cookie: string): Promise<number> {
  return new Promise((resolve) => {
    const request = get(`${origin}/`, { agent: false, headers: { cookie } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', () => resolve(0));
    request.setTimeout(5_000, () => request.destroy());
  });
}

describe('updater serve under a socket flood', () => {
  it('closes idle and trickling sockets; page loads and the scheduled run go on', async () => {
    const io = capture();
    let stop: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const exit = runCli(
      [
        'serve',
        ...['--base-url', server.url, '--pubkey', server.nodePubkey],
        ...['--data-dir', join(tmp, 'data')],
        ...['--max-connections', '40', '--headers-timeout-ms', '1000'],
        ...['--request-timeout-ms', '2000', '--idle-timeout-ms', '5000'],
      ],
      { machineKey, stop: stopped, appDir } as Parameters<typeof runCli>[1],
      io,
    );
    const { url } = JSON.parse(await io.firstLine) as { url: string };
    const origin = new URL(url).origin;
    const port = Number(new URL(url).port);
    const exchange = await fetch(url, { redirect: 'manual' });
    const cookie = (exchange.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const idle = flood(port, 120, false);
    const trickling = flood(port, 60, true);
    const loads: number[] = [];
    let installed: string | null = null;
    try {
      // The first scheduled run comes 5-15 s after start (check-scheduler.ts); no checkNow.
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && (installed === null || loads.length < 10)) {
        loads.push(await pageLoad(origin, cookie));
        const status = await fetch(`${origin}/api/bridge/getStatus`, {
          method: 'POST',
          headers: { cookie, origin, 'content-type': 'application/json' },
          body: '{"args":[]}',
        });
        installed = ((await status.json()) as { result: AppStatus }).result.installedVersion;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    } finally {
      idle.stop();
      trickling.stop();
    }
    stop();
    expect(await exit).toBe(0);
    expect(installed).toBe('1.0.0');
    expect(loads.length).toBeGreaterThanOrEqual(10);
    expect(loads.every((status) => status === 200)).toBe(true);
    // The server closed the abusers (timeouts and evictions), many times over each.
    expect(idle.closedByServer).toBeGreaterThan(120);
    expect(trickling.closedByServer).toBeGreaterThan(60);
  }, 60_000);
});
