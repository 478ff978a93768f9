/**
 * The Fetcher port over a session fetch (src/node/http/fetch-fetcher.ts; docs/DESKTOP.md
 * "Network"): the port's contract (status, headers, streamed body, Range, no redirect, abort,
 * typed failures) and, driven through a real forward proxy on loopback, proof that the adapter
 * sends every request of a whole update through whatever fetch it is given.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '#server/compose/start-server.js';
import { createFetchFetcher, type FetchLike } from '#node/http/fetch-fetcher.js';
import { createNodeUpdater } from '#node/create-updater.js';
import { proxyFetch, startForwardProxy, type ForwardProxy } from '#test/forward-proxy.js';

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<number> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return (server.address() as AddressInfo).port;
}

async function proxyTo(port: number, credentials?: string): Promise<ForwardProxy> {
  const proxy = await startForwardProxy({
    target: { host: '127.0.0.1', port },
    ...(credentials === undefined ? {} : { credentials }),
  });
  cleanups.push(() => proxy.close());
  return proxy;
}

async function readAll(body: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const chunk of body) parts.push(chunk);
  return Buffer.concat(parts).toString();
}

const signal = (): AbortSignal => new AbortController().signal;
const direct: FetchLike = (url, init) => fetch(url, init);

describe('fetch fetcher: the port', () => {
  it('returns status, headers and the streamed body, sending our headers and Range', async () => {
    const seen: { range?: string | undefined; auth?: string | undefined } = {};
    const port = await serve((req, res) => {
      seen.range = req.headers.range;
      seen.auth = req.headers.authorization;
      res.writeHead(206, { 'content-range': 'bytes 2-4/10', etag: '"e1"' });
      res.end('cde');
    });
    const fetcher = createFetchFetcher({ fetch: direct, headersTimeoutMs: 2_000 });
    const response = await fetcher.get(`http://127.0.0.1:${port}/a`, {
      headers: { range: 'bytes=2-4', authorization: 'Bearer k' },
      signal: signal(),
    });
    expect(response.status).toBe(206);
    expect(response.header('content-range')).toBe('bytes 2-4/10');
    expect(response.header('ETag')).toBe('"e1"');
    expect(response.header('x-missing')).toBeUndefined();
    expect(await readAll(response.body)).toBe('cde');
    expect(seen).toEqual({ range: 'bytes=2-4', auth: 'Bearer k' });
  });

  it('follows no redirect and throws on no status', async () => {
    const port = await serve((req, res) => {
      res.writeHead(req.url === '/r' ? 302 : 503, { location: '/elsewhere' });
      res.end();
    });
    const fetcher = createFetchFetcher({ fetch: direct, headersTimeoutMs: 2_000 });
    const moved = await fetcher.get(`http://127.0.0.1:${port}/r`, {
      headers: {},
      signal: signal(),
    });
    expect(moved.status).toBe(302);
    expect(moved.header('location')).toBe('/elsewhere');
    const down = await fetcher.get(`http://127.0.0.1:${port}/e`, { headers: {}, signal: signal() });
    expect(down.status).toBe(503);
  });

  it('rejects with a transient NETWORK error when nothing listens', async () => {
    const port = await serve((_req, res) => res.end());
    await cleanups.pop()?.();
    const fetcher = createFetchFetcher({ fetch: direct, headersTimeoutMs: 2_000 });
    await expect(
      fetcher.get(`http://127.0.0.1:${port}/`, { headers: {}, signal: signal() }),
    ).rejects.toMatchObject({ code: 'NETWORK', transient: true });
  });

  it('gives up on a server that never answers after headersTimeoutMs (NETWORK)', async () => {
    const port = await serve(() => undefined);
    const fetcher = createFetchFetcher({ fetch: direct, headersTimeoutMs: 200 });
    await expect(
      fetcher.get(`http://127.0.0.1:${port}/`, { headers: {}, signal: signal() }),
    ).rejects.toMatchObject({ code: 'NETWORK', message: 'no answer within 200 ms' });
  });

  it('aborts before the head and in the middle of the body (ABORTED)', async () => {
    const port = await serve((req, res) => {
      if (req.url === '/slow') return; // never answers
      res.writeHead(200);
      res.write('first');
    });
    const fetcher = createFetchFetcher({ fetch: direct, headersTimeoutMs: 5_000 });
    const early = new AbortController();
    const pending = fetcher.get(`http://127.0.0.1:${port}/slow`, {
      headers: {},
      signal: early.signal,
    });
    early.abort();
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });

    const late = new AbortController();
    const response = await fetcher.get(`http://127.0.0.1:${port}/body`, {
      headers: {},
      signal: late.signal,
    });
    const reading = (async () => {
      for await (const chunk of response.body) {
        expect(Buffer.from(chunk).toString()).toBe('first');
        late.abort();
      }
    })();
    await expect(reading).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('discard() drops the rest of the body and the connection', async () => {
    let closed = false;
    const port = await serve((_req, res) => {
      res.on('close', () => (closed = true));
      res.writeHead(200);
      res.write('part');
    });
    const fetcher = createFetchFetcher({ fetch: direct, headersTimeoutMs: 2_000 });
    const response = await fetcher.get(`http://127.0.0.1:${port}/`, {
      headers: {},
      signal: signal(),
    });
    response.discard();
    await expect.poll(() => closed).toBe(true);
  });
});

describe('fetch fetcher: through a proxy', () => {
  it('sends every request of a whole update through the fetch it is given (forward proxy)', async () => {
    const registry = await startServer({ dev: true, simulate: false });
    cleanups.push(() => registry.close());
    const dir = await mkdtemp(join(tmpdir(), 'fetch-fetcher-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const content = new TextEncoder().encode('through the proxy\n');
    await registry.publish({ registry_version: '1.0.0', artifacts: [{ name: 'a.txt', content }] });
    const mint = await fetch(`${registry.url}/api/demo-key/mint`, { method: 'POST' });
    const { machine_key: machineKey } = (await mint.json()) as { machine_key: string };
    const proxy = await proxyTo(Number(new URL(registry.url).port), 'user:secret');
    // A name that resolves nowhere (RFC 6761 .test): only the proxy can reach it.
    const baseUrl = `http://registry.test:${new URL(registry.url).port}`;
    await expect(fetch(`${baseUrl}/api/updates/keys`)).rejects.toThrow();

    const updater = await createNodeUpdater({
      baseUrl,
      machineKey,
      pubkeys: [registry.nodePubkey],
      dir,
      fetch: proxyFetch(proxy.url, 'user:secret'),
    });
    try {
      const result = await updater.update();
      expect(result).toMatchObject({ version: '1.0.0' });
    } finally {
      await updater.close();
    }
    expect(await readFile(join(dir, 'current', 'a.txt'), 'utf8')).toBe('through the proxy\n');
    const paths = proxy.log.map((entry) => new URL(entry.target).pathname);
    expect(paths.some((p) => p.startsWith('/api/updates/manifest'))).toBe(true);
    expect(paths.some((p) => p.startsWith('/api/updates/artifacts/'))).toBe(true);
    expect(proxy.log.every((entry) => entry.target.startsWith(`${baseUrl}/`))).toBe(true);
  });

  it('a proxy refusing the credentials answers 407, a status like any other', async () => {
    const port = await serve((_req, res) => res.end('never reached'));
    const proxy = await proxyTo(port, 'user:secret');
    const fetcher = createFetchFetcher({
      fetch: proxyFetch(proxy.url, 'user:wrong'),
      headersTimeoutMs: 2_000,
    });
    const response = await fetcher.get('http://registry.test/x', { headers: {}, signal: signal() });
    expect(response.status).toBe(407);
    response.discard();
    expect(proxy.log).toEqual([]);
  });
});
