/**
 * The CLI follows the proxy variables (docs/UPDATER.md §7, Proxy), on a child process: the
 * registry is named `registry.test` (RFC 6761: it resolves nowhere), so a run reaches it only
 * through the loopback forward proxy (test/helpers/forward-proxy.ts), which routes every host
 * to the real registry (or, for the https case, to a TLS front of it) and logs what passed.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '#scripts/build-app.mjs';
import { buildCli, launcherOf } from '#scripts/build-cli.mjs';
import { startServer, type RunningServer } from '#server/compose/start-server.js';
import { startForwardProxy, type ForwardProxy } from '#test/forward-proxy.js';
import { startServeProcess } from '#test/serve-process.js';
import { makeTestPki } from '#test/tls-cert.js';
import { cliArgs, runCli, tempDirs, type CliResult } from '#test/updater-harness.js';

const run = promisify(execFile);
const dirs = tempDirs();
const SECRET = 'pa55-w0rd-never-printed';
/** Every proxy variable blanked (an empty one counts as unset), so the host's own do not leak in. */
const CLEAN = Object.fromEntries(
  ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY']
    .concat(['no_proxy', 'NO_PROXY'])
    .map((name) => [name, '']),
);

/** A failure to reach the registry is transient: no retry, no backoff to wait out. */
const NO_RETRY = ['--retries', '0'];

let registry: RunningServer;
let machineKey: string;
let port: number;
let proxy: ForwardProxy;
let tlsFront: TlsServer;
let tlsProxy: ForwardProxy;
let certFile: string;
let work: string;

/** A TLS terminator in front of the registry, for https://registry.test through CONNECT. */
async function startTlsFront(key: string, cert: string): Promise<TlsServer> {
  const server = createTlsServer({ key, cert }, (socket) => {
    const upstream = connect(port, '127.0.0.1');
    socket.pipe(upstream).pipe(socket);
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return server;
}

beforeAll(async () => {
  registry = await startServer({ dev: true, simulate: false });
  port = Number(new URL(registry.url).port);
  const content = new TextEncoder().encode('through the proxy\n');
  await registry.publish({ registry_version: '1.0.0', artifacts: [{ name: 'a.txt', content }] });
  const mint = await fetch(`${registry.url}/api/demo-key/mint`, { method: 'POST' });
  ({ machine_key: machineKey } = (await mint.json()) as { machine_key: string });
  proxy = await startForwardProxy({
    target: { host: '127.0.0.1', port },
    credentials: `user:${SECRET}`,
  });
  work = await mkdtemp(join(tmpdir(), 'updater-proxy-'));
  // The authority's certificate is what the CLI trusts (NODE_EXTRA_CA_CERTS).
  const pki = makeTestPki(['registry.test']);
  certFile = join(work, 'ca.pem');
  await writeFile(certFile, pki.caPem);
  tlsFront = await startTlsFront(pki.keyPem, pki.certPem);
  tlsProxy = await startForwardProxy({
    target: { host: '127.0.0.1', port: (tlsFront.address() as AddressInfo).port },
  });
}, 30_000);

afterAll(async () => {
  await proxy.close();
  await tlsProxy.close();
  await new Promise<void>((done) => tlsFront.close(() => done()));
  await registry.close();
  await dirs.cleanup();
  await rm(work, { recursive: true, force: true });
});

const httpBase = (): string => `http://registry.test:${port}`;
const proxyWith = (credentials: string): string =>
  proxy.url.replace('http://', `http://${credentials}@`);

async function cli(
  command: string,
  env: Record<string, string>,
  extra: readonly string[] = [],
  baseUrl = httpBase(),
): Promise<CliResult & { dir: string }> {
  const dir = await dirs.make('proxy-');
  const target = { baseUrl, machineKey, pubkeyHex: registry.nodePubkey, dir };
  const result = await runCli(cliArgs(command, target, extra), { env: { ...CLEAN, ...env } });
  return { ...result, dir };
}

function expectNoSecret(result: CliResult): void {
  expect(result.stdout).not.toContain(SECRET);
  expect(result.stderr).not.toContain(SECRET);
}

describe('updater CLI behind a proxy', () => {
  it('installs a whole update through http_proxy with Basic credentials (absolute-form)', async () => {
    proxy.log.length = 0;
    const result = await cli('update', { http_proxy: proxyWith(`user:${SECRET}`) });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.json).toMatchObject({ ok: true, version: '1.0.0' });
    expect(await readFile(join(result.dir, 'current', 'a.txt'), 'utf8')).toBe(
      'through the proxy\n',
    );
    const paths = proxy.log.map((entry) => new URL(entry.target).pathname);
    expect(paths.some((p) => p.startsWith('/api/updates/manifest'))).toBe(true);
    expect(paths.some((p) => p.startsWith('/api/updates/artifacts/'))).toBe(true);
    expect(proxy.log.every((entry) => entry.target.startsWith(`${httpBase()}/`))).toBe(true);
  });

  it('installs through https_proxy with a CONNECT tunnel to an https registry', async () => {
    tlsProxy.log.length = 0;
    const result = await cli(
      'update',
      { HTTPS_PROXY: tlsProxy.url, NODE_EXTRA_CA_CERTS: certFile },
      [],
      `https://registry.test:${port}`,
    );
    expect(result.stderr).toBe('');
    expect(result.json).toMatchObject({ ok: true, version: '1.0.0' });
    expect(tlsProxy.log.length).toBeGreaterThan(0);
    expect(
      tlsProxy.log.every((e) => e.method === 'CONNECT' && e.target === `registry.test:${port}`),
    ).toBe(true);
  });

  it('without the proxy the name does not resolve: --no-proxy, NO_PROXY and HTTP_PROXY', async () => {
    proxy.log.length = 0;
    const env = { http_proxy: proxyWith(`user:${SECRET}`) };
    const flagged = await cli('check', env, ['--no-proxy', ...NO_RETRY]);
    expect(flagged.json).toMatchObject({ ok: false, code: 'NETWORK' });
    const bypassed = await cli('check', { ...env, NO_PROXY: '.test' }, NO_RETRY);
    expect(bypassed.json).toMatchObject({ ok: false, code: 'NETWORK' });
    expect(String(bypassed.json?.['message'])).not.toContain('proxy');
    // httpoxy: the upper-case variable is not read for http URLs, and the run says so.
    const upper = await cli('check', { HTTP_PROXY: proxyWith(`user:${SECRET}`) }, NO_RETRY);
    expect(upper.json).toMatchObject({ ok: false, code: 'NETWORK' });
    expect(upper.stderr).toContain('warn HTTP_PROXY is ignored');
    expect(proxy.log).toEqual([]);
    for (const r of [flagged, bypassed, upper]) expectNoSecret(r);
  });

  it('wrong credentials: HTTP_STATUS naming the proxy and 407, no secret printed', async () => {
    const result = await cli('update', { http_proxy: proxyWith(`user:wrong-${SECRET}`) });
    expect(result.exitCode).toBe(1);
    expect(result.json).toMatchObject({ ok: false, code: 'HTTP_STATUS' });
    const message = String(result.json?.['message']);
    expect(message).toContain(`the proxy ${proxy.url} (http_proxy)`);
    expect(message).toContain('407');
    expect(result.stderr).toContain('407 Proxy Authentication Required');
    expectNoSecret(result);
  });

  it('no credentials through CONNECT: the refused tunnel is a 407 from the proxy', async () => {
    const authed = await startForwardProxy({
      target: { host: '127.0.0.1', port },
      credentials: 'a:b',
    });
    try {
      const result = await cli(
        'check',
        { https_proxy: authed.url },
        [],
        `https://registry.test:${port}`,
      );
      expect(result.json).toMatchObject({ ok: false, code: 'HTTP_STATUS' });
      expect(String(result.json?.['message'])).toContain('it wants credentials');
    } finally {
      await authed.close();
    }
  });

  it('a proxy that refuses the connection: NETWORK saying it was the proxy', async () => {
    const dead = await startForwardProxy({ target: { host: '127.0.0.1', port } });
    const deadUrl = dead.url;
    await dead.close();
    const result = await cli(
      'check',
      { http_proxy: deadUrl.replace('http://', `http://u:${SECRET}@`) },
      NO_RETRY,
    );
    expect(result.json).toMatchObject({ ok: false, code: 'NETWORK' });
    expect(String(result.json?.['message'])).toContain(
      `the proxy ${deadUrl} (http_proxy) refused the connection`,
    );
    expectNoSecret(result);
  });

  it('a malformed variable is CONFIG_INVALID (exit 2) naming it, never its value', async () => {
    const result = await cli('update', { https_proxy: `socks5://u:${SECRET}@p:1080` });
    expect(result.exitCode).toBe(2);
    expect(result.json).toMatchObject({ ok: false, code: 'CONFIG_INVALID' });
    expect(String(result.json?.['message'])).toContain('https_proxy');
    expectNoSecret(result);
    // Local commands do not read the variables at all.
    const status = await cli('status', { https_proxy: `socks5://u:${SECRET}@p:1080` });
    expect(status.exitCode).toBe(0);
  });
});

describe('the bundled CLI behind a proxy', () => {
  let bundle: string;
  beforeAll(async () => {
    // dist/cli beside dist/app, as it ships: serve finds the window's files there.
    bundle = await buildCli({ outfile: join(work, 'dist', 'cli', 'updater.mjs') });
    await buildApp({ outDir: join(work, 'dist', 'app'), only: ['renderer', 'web'] });
  }, 60_000);
  const args = (dir: string, base: string): string[] =>
    cliArgs('check', { baseUrl: base, machineKey, pubkeyHex: registry.nodePubkey, dir });

  it('serve: the core and the ranking reach https://registry.test through CONNECT', async () => {
    tlsProxy.log.length = 0;
    const served = await startServeProcess(
      [
        '--base-url',
        `https://registry.test:${port}`,
        '--pubkey',
        registry.nodePubkey,
        '--data-dir',
        await dirs.make('serve-'),
      ],
      {
        ...CLEAN,
        HTTPS_PROXY: tlsProxy.url,
        NODE_EXTRA_CA_CERTS: certFile,
        UPDATER_MACHINE_KEY: machineKey,
      },
      bundle,
    );
    try {
      const exchange = await fetch(served.url, { redirect: 'manual' });
      const cookie = (exchange.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      const call = async (name: string): Promise<unknown> => {
        const response = await fetch(`${served.origin}/api/bridge/${name}`, {
          method: 'POST',
          headers: { cookie, origin: served.origin, 'content-type': 'application/json' },
          body: '{"args":[]}',
        });
        return ((await response.json()) as { result?: unknown }).result;
      };
      await call('checkNow');
      expect(await call('getStatus')).toMatchObject({ installedVersion: '1.0.0' });
      expect(await call('getActivity')).toMatchObject({ state: 'ok' });
    } finally {
      expect(await served.stop()).toBe(0);
    }
    expect(tlsProxy.log.length).toBeGreaterThan(0);
    expect(tlsProxy.log.every((e) => e.target === `registry.test:${port}`)).toBe(true);
  }, 30_000);

  it('loads undici from its own file, and only when a proxy is set', async () => {
    const env = { ...process.env, ...CLEAN, http_proxy: proxyWith(`user:${SECRET}`) };
    const proxied = await run(
      process.execPath,
      [launcherOf(bundle), ...args(await dirs.make(), httpBase())],
      { env },
    );
    expect(JSON.parse(proxied.stdout)).toMatchObject({ ok: true, update_available: true });
    // Without the file, a run with no proxy variable still works: it never loads it.
    await unlink(join(dirname(bundle), 'undici.mjs'));
    const direct = await run(
      process.execPath,
      [launcherOf(bundle), ...args(await dirs.make(), registry.url)],
      { env: { ...process.env, ...CLEAN } },
    );
    expect(JSON.parse(direct.stdout)).toMatchObject({ ok: true, update_available: true });
    // And undici is not inside the main bundle: without its file a proxied run cannot start.
    const orphan = await run(
      process.execPath,
      [launcherOf(bundle), ...args(await dirs.make(), httpBase())],
      { env },
    ).then(
      () => 0,
      (error: { code?: number }) => error.code ?? -1,
    );
    expect(orphan).not.toBe(0);
  }, 30_000);
});
