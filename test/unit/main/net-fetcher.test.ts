/**
 * src/main/net-fetcher.ts with `electron` mocked: Electron's session fetch stands in as a fetch
 * through a real forward proxy on loopback (test/helpers/forward-proxy.ts), as a system proxy
 * would make it. The core's port and the activity ranking, both given netFetch, reach a
 * registry whose name resolves nowhere: only through the proxy (docs/DESKTOP.md "Network").
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { proxyFetch, startForwardProxy, type ForwardProxy } from '#test/forward-proxy.js';

const h = vi.hoisted(() => ({
  sessionFetch: undefined as undefined | ((url: string, init?: RequestInit) => Promise<Response>),
  calls: [] as string[],
}));

vi.mock('electron', () => ({
  net: {
    fetch: (url: string, init?: RequestInit) => {
      h.calls.push(url);
      if (h.sessionFetch === undefined) throw new Error('no session');
      return h.sessionFetch(url, init);
    },
  },
}));

const { netFetch } = await import('#main/net-fetcher.js');
const { createFetchFetcher } = await import('#node/http/fetch-fetcher.js');
const { fetchActivity } = await import('#app/activity-client.js');

let registry: Server;
let proxy: ForwardProxy;
let base: string;

beforeAll(async () => {
  registry = createServer((req, res) => {
    if (req.url?.startsWith('/api/chain/active') === true) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true, window: 60, unit_ms: 1000, machines: [] }));
      return;
    }
    res.writeHead(206, { 'content-range': 'bytes 0-1/4' });
    res.end(`ab:${req.headers.range ?? ''}`);
  });
  await new Promise<void>((done) => registry.listen(0, '127.0.0.1', done));
  const { port } = registry.address() as AddressInfo;
  proxy = await startForwardProxy({ target: { host: '127.0.0.1', port } });
  h.sessionFetch = proxyFetch(proxy.url);
  base = `http://registry.test:${port}`; // RFC 6761: resolves nowhere
});

afterAll(async () => {
  await proxy.close();
  registry.closeAllConnections();
  await new Promise((done) => registry.close(done));
});

describe('net fetcher (electron mocked, real proxy)', () => {
  it("the core's port sends its request, Range included, through the session fetch", async () => {
    const fetcher = createFetchFetcher({ fetch: netFetch, headersTimeoutMs: 2_000 });
    const response = await fetcher.get(`${base}/blob`, {
      headers: { range: 'bytes=0-1' },
      signal: new AbortController().signal,
    });
    expect(response.status).toBe(206);
    const parts: Uint8Array[] = [];
    for await (const chunk of response.body) parts.push(chunk);
    expect(Buffer.concat(parts).toString()).toBe('ab:bytes=0-1');
    expect(h.calls).toContain(`${base}/blob`);
    expect(proxy.log).toContainEqual({ method: 'GET', target: `${base}/blob`, range: 'bytes=0-1' });
  });

  it('the activity ranking goes through it too', async () => {
    const result = await fetchActivity({ baseUrl: base, fetch: netFetch });
    expect(result.state).toBe('ok');
    expect(proxy.log.map((entry) => new URL(entry.target).pathname)).toContain('/api/chain/active');
  });
});
