/**
 * src/main/net-fetcher.ts with `electron` mocked: Electron's `net.request` stands in as a
 * Chromium-like request through a real forward proxy on loopback (test/helpers/forward-proxy.ts)
 * that asks for a password, as a system proxy would. The core's port and the activity ranking,
 * both given the app's fetch, reach a registry whose name resolves nowhere: only through the
 * proxy, signed in once (docs/DESKTOP.md "Network", "Proxy sign-in").
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startForwardProxy, type ForwardProxy } from '#test/forward-proxy.js';
import type { NetRequestFactory } from '#main/net-request-fetch.js';
import type { Challenge } from '#main/proxy-login.js';

const h = vi.hoisted(() => ({
  request: undefined as undefined | NetRequestFactory,
  calls: [] as string[],
}));

vi.mock('electron', () => ({
  net: {
    request: (options: { url: string; method: string; redirect: 'manual' }) => {
      h.calls.push(options.url);
      if (h.request === undefined) throw new Error('no session');
      return h.request(options);
    },
  },
}));

const { proxyAwareNetFetch, attachAppLogin } = await import('#main/net-fetcher.js');
const { createFetchFetcher } = await import('#node/http/fetch-fetcher.js');
const { fetchActivity } = await import('#app/activity-client.js');
const { createProxyLogin } = await import('#main/proxy-login.js');
const { chromiumLike } = await import('./chromium-request-stand-in.js');

let registry: Server;
let proxy: ForwardProxy;
let base: string;
const questions: string[] = [];
const login = createProxyLogin({
  ask: (q) => {
    questions.push(q.proxy);
    return Promise.resolve({ username: 'alice', password: 'right' });
  },
  seal: { seal: (text) => text, open: (box) => String(box) },
  report: () => undefined,
});
const doFetch = proxyAwareNetFetch((challenge) => login.onChallenge(challenge));

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
  proxy = await startForwardProxy({
    target: { host: '127.0.0.1', port },
    credentials: 'alice:right',
  });
  h.request = chromiumLike(proxy.url, { credential: null });
  base = `http://registry.test:${port}`; // RFC 6761: resolves nowhere
});

afterAll(async () => {
  await proxy.close();
  registry.closeAllConnections();
  await new Promise((done) => registry.close(done));
});

describe('net fetcher (electron mocked, real proxy asking for a password)', () => {
  it("the core's port sends its request, Range included, through net.request, signed in", async () => {
    const fetcher = createFetchFetcher({ fetch: doFetch, headersTimeoutMs: 2_000 });
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
    expect(questions).toHaveLength(1);
  });

  it('the activity ranking goes through it too, without asking again', async () => {
    const result = await fetchActivity({ baseUrl: base, fetch: doFetch });
    expect(result.state).toBe('ok');
    expect(proxy.log.map((entry) => new URL(entry.target).pathname)).toContain('/api/chain/active');
    expect(questions).toHaveLength(1);
  });
});

describe("app 'login' (web contents)", () => {
  type Listener = (
    event: { preventDefault(): void },
    webContents: unknown,
    details: unknown,
    authInfo: Challenge,
    callback: (username?: string, password?: string) => void,
  ) => void;

  function attach(answer = vi.fn(() => Promise.resolve({ username: 'u', password: 'p' }))) {
    let listener: Listener | undefined;
    const app = {
      on: (name: string, fn: Listener) => {
        if (name === 'login') listener = fn;
        return app;
      },
    };
    attachAppLogin(app as never, answer);
    return { listener: () => listener, answer };
  }

  it('answers a proxy challenge through the policy', async () => {
    const a = attach();
    const prevent = vi.fn();
    const answered = new Promise<unknown[]>((resolve) =>
      a.listener()?.(
        { preventDefault: prevent },
        null,
        null,
        { isProxy: true, scheme: 'basic', host: 'p', port: 1, realm: '' },
        (...args) => resolve(args),
      ),
    );
    expect(await answered).toEqual(['u', 'p']);
    expect(prevent).toHaveBeenCalledTimes(1);
  });

  it("leaves a server's challenge to Electron's default, which cancels it", () => {
    const a = attach();
    const prevent = vi.fn();
    const callback = vi.fn();
    a.listener()?.(
      { preventDefault: prevent },
      null,
      null,
      { isProxy: false, scheme: 'basic', host: 's', port: 443, realm: 'x' },
      callback,
    );
    expect(prevent).not.toHaveBeenCalled();
    expect(a.answer).not.toHaveBeenCalled();
    expect(callback).not.toHaveBeenCalled();
  });
});
