/**
 * The fetch over the environment's proxy (src/node/proxy/proxy-fetch.ts, docs/UPDATER.md §7,
 * Proxy): each URL goes where env-proxy.ts decides, and a failure the proxy caused says so.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UpdateError } from '#core/errors.js';
import { proxySettings } from '#node/proxy/env-proxy.js';
import {
  createProxyFetch,
  loadUndici,
  proxyError,
  type ProxyFetch,
} from '#node/proxy/proxy-fetch.js';
import { startForwardProxy, type ForwardProxy } from '#test/forward-proxy.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function origin(): Promise<number> {
  const server: Server = createServer((req, res) => res.end(`origin saw ${req.url ?? ''}`));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  cleanups.push(() => new Promise<void>((done) => server.close(() => done())));
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

async function fetchWith(env: Record<string, string>): Promise<ProxyFetch> {
  const settings = proxySettings(env);
  if (settings === null) throw new Error('no proxy in the test environment');
  const made = createProxyFetch(settings, await loadUndici());
  cleanups.push(() => made.close());
  return made;
}

const server = { origin: 'http://proxy.corp:3128', variable: 'https_proxy', authorization: 'x' };

describe('proxy fetch', () => {
  it('sends a URL the proxy covers through it, in absolute form with the credentials', async () => {
    const port = await origin();
    const proxy = await proxyTo(port, 'u:p w');
    const { fetch } = await fetchWith({ http_proxy: proxy.url.replace('//', '//u:p%20w@') });
    const response = await fetch(`http://registry.test:${port}/a?b`);
    expect(await response.text()).toBe('origin saw /a?b');
    expect(proxy.log).toEqual([
      { method: 'GET', target: `http://registry.test:${port}/a?b`, range: undefined },
    ]);
  });

  it('sends loopback and NO_PROXY hosts directly', async () => {
    const port = await origin();
    const proxy = await proxyTo(port);
    const { fetch } = await fetchWith({ http_proxy: proxy.url, NO_PROXY: 'registry.test' });
    expect(await (await fetch(`http://127.0.0.1:${port}/x`)).text()).toBe('origin saw /x');
    // Direct, so the name resolves nowhere: said as the node:http fetcher says it.
    await expect(fetch(`http://registry.test:${port}/y?k`)).rejects.toMatchObject({
      code: 'NETWORK',
      transient: true,
      details: {
        url: `http://registry.test:${port}/y`,
        errno: expect.stringMatching(/^E/) as string,
      },
    });
    expect(proxy.log).toEqual([]);
  });

  it('a 407 is HTTP_STATUS naming the proxy and the variable, not a response', async () => {
    const port = await origin();
    const proxy = await proxyTo(port, 'u:right');
    const { fetch } = await fetchWith({ http_proxy: proxy.url.replace('//', '//u:wrong@') });
    const error = await fetch(`http://registry.test:${port}/`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpdateError);
    expect(error).toMatchObject({
      code: 'HTTP_STATUS',
      transient: false,
      details: { url: `http://registry.test:${port}/`, proxy: proxy.url, status: 407 },
    });
    expect((error as Error).message).toBe(
      `the proxy ${proxy.url} (http_proxy) refused the request: 407 Proxy Authentication ` +
        'Required (check the user and password in http_proxy)',
    );
  });

  it('maps a refused tunnel by its status: 5xx transient, others not', () => {
    const tunnel = (status: number): Error =>
      new TypeError('fetch failed', {
        cause: new Error('x', { cause: new Error(`Proxy response (${status}) !== 200`) }),
      });
    expect(proxyError(server, 'https://r.test/m', tunnel(502))).toMatchObject({
      code: 'NETWORK',
      transient: true,
      message:
        'the proxy http://proxy.corp:3128 (https_proxy) refused the tunnel to r.test: HTTP 502',
    });
    expect(proxyError(server, 'https://r.test/m', tunnel(403)).transient).toBe(false);
    expect(proxyError(server, 'https://r.test/m', tunnel(407)).code).toBe('HTTP_STATUS');
  });

  it('says a refused connection or an unknown host was the proxy', () => {
    const errno = (code: string): Error =>
      new TypeError('fetch failed', {
        cause: Object.assign(new Error(`connect ${code}`), { code }),
      });
    expect(proxyError(server, 'http://r.test/', errno('ECONNREFUSED')).message).toBe(
      'the proxy http://proxy.corp:3128 (https_proxy) refused the connection (ECONNREFUSED): connect ECONNREFUSED',
    );
    expect(proxyError(server, 'http://r.test/', errno('ENOTFOUND')).message).toContain(
      '(https_proxy) does not resolve',
    );
    expect(proxyError(server, 'http://r.test/', new Error('tls')).message).toBe(
      'request through the proxy http://proxy.corp:3128 (https_proxy) failed: tls',
    );
  });
});
