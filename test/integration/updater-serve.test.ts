/**
 * `updater serve` in-process (src/cli/serve.ts through the CLI dispatcher): the first stdout
 * line, the bridge over HTTP against the real core and companion server, a clean stop that
 * releases the state lock, and its usage refusals. The browser side is test/e2e/web-window.spec.ts.
 */
import { createServer } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '#scripts/build-app.mjs';
import { startServer, type RunningServer } from '#server/compose/start-server.js';
import { runCli, type CliIo } from '#cli/run-cli.js';
import { STOP_SIGNALS } from '#cli/serve.js';
import { createNodeUpdater } from '#node/create-updater.js';
import type { AppStatus } from '#preload/ipc-contract.js';

let tmp: string;
let appDir: string;
let server: RunningServer;
let machineKey: string;

function capture(): CliIo & { out: string[]; err: string[]; firstLine: Promise<string> } {
  const out: string[] = [];
  const err: string[] = [];
  let resolveFirst: (line: string) => void = () => undefined;
  const firstLine = new Promise<string>((resolve) => (resolveFirst = resolve));
  return {
    out,
    err,
    firstLine,
    stdout: (text) => {
      out.push(text);
      if (out.length === 1) resolveFirst(text);
    },
    stderr: (text) => err.push(text),
    stderrIsTty: false,
    columns: 80,
    nowMs: () => Date.now(),
  };
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'updater-serve-'));
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

describe('updater serve', () => {
  it('prints {"url"} first, answers the bridge over HTTP, installs, and stops cleanly', async () => {
    const io = capture();
    const dataDir = join(tmp, 'data');
    let stop: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const exit = runCli(
      ['serve', '--base-url', server.url, '--pubkey', server.nodePubkey, '--data-dir', dataDir],
      { machineKey, stop: stopped, appDir } as Parameters<typeof runCli>[1],
      io,
    );
    const first = JSON.parse(await io.firstLine) as { url: string };
    expect(Object.keys(first)).toEqual(['url']);
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);

    const exchange = await fetch(first.url, { redirect: 'manual' });
    expect(exchange.status).toBe(303);
    const cookie = (exchange.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const origin = new URL(first.url).origin;
    const call = async (name: string): Promise<unknown> => {
      const response = await fetch(`${origin}/api/bridge/${name}`, {
        method: 'POST',
        headers: { cookie, origin, 'content-type': 'application/json' },
        body: '{"args":[]}',
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { result?: unknown }).result;
    };
    expect(((await call('getStatus')) as AppStatus).registryLabel).toBe(new URL(server.url).host);
    await call('checkNow');
    expect(((await call('getStatus')) as AppStatus).installedVersion).toBe('1.0.0');

    stop();
    expect(await exit).toBe(0);
    expect(io.out).toHaveLength(1);
    expect(io.err.join('')).toContain('stopping');
    // The core released its lock: another updater can open the same state directory.
    const again = await createNodeUpdater({
      baseUrl: '',
      machineKey: '',
      pubkeys: [server.nodePubkey],
      dir: join(dataDir, 'install'),
    });
    expect((await again.status()).installedVersion).toBe('1.0.0');
    await again.close();
  });

  it('stops cleanly on SIGHUP (its terminal closed): exit 0, the lock released', async () => {
    const before = new Map(STOP_SIGNALS.map((s) => [s, process.listeners(s)]));
    const io = capture();
    const dataDir = join(tmp, 'hangup');
    const exit = runCli(
      ['serve', '--base-url', server.url, '--pubkey', server.nodePubkey, '--data-dir', dataDir],
      { machineKey, appDir } as Parameters<typeof runCli>[1],
      io,
    );
    try {
      await io.firstLine;
      // The signal's event, as Node emits it on a real SIGHUP (which would hit this worker).
      process.emit('SIGHUP', 'SIGHUP');
      expect(await exit).toBe(0);
      const again = await createNodeUpdater({
        baseUrl: '',
        machineKey: '',
        pubkeys: [server.nodePubkey],
        dir: join(dataDir, 'install'),
      });
      await again.close();
    } finally {
      // Only the handlers serve added: this worker keeps its own.
      for (const [signal, kept] of before) {
        for (const l of process.listeners(signal)) if (!kept.includes(l)) process.off(signal, l);
      }
    }
  });

  it('EADDRINUSE (exit 1, as the companion server and `npm start` say it): the port is in use', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    const io = capture();
    try {
      const code = await runCli(
        [
          'serve',
          '--port',
          String(port),
          '--data-dir',
          join(tmp, 'busy'),
          '--base-url',
          server.url,
          '--pubkey',
          server.nodePubkey,
        ],
        { machineKey, appDir } as Parameters<typeof runCli>[1],
        io,
      );
      expect(code).toBe(1);
      expect(io.err.join('')).toContain(`error EADDRINUSE: port ${port} on 127.0.0.1 is in use`);
      expect(io.out).toEqual([]);
    } finally {
      busy.close();
    }
  });

  it('CONFIG_INVALID (exit 2): the window’s files are not built', async () => {
    const io = capture();
    const code = await runCli(
      ['serve', '--data-dir', join(tmp, 'unbuilt')],
      { appDir: join(tmp, 'nothing-here') } as Parameters<typeof runCli>[1],
      io,
    );
    expect(code).toBe(2);
    expect(io.err.join('')).toContain('npm run build:app');
  });

  it('CONFIG_INVALID (exit 2): a bad flag prints serve’s usage', async () => {
    const io = capture();
    expect(await runCli(['serve', '--port', 'x'], {}, io)).toBe(2);
    expect(io.err.join('')).toContain('usage: npm run updater -- serve');
  });

  it('--help prints serve’s usage on stdout, exit 0; the CLI’s own help mentions serve', async () => {
    const io = capture();
    expect(await runCli(['serve', '--help'], {}, io)).toBe(0);
    expect(io.out.join('')).toContain('--listen ADDR');
    const top = capture();
    expect(await runCli(['--help'], {}, top)).toBe(0);
    expect(top.out.join('')).toContain('serve --help');
  });
});
