import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createGotFetcher } from '../../../src/node/got-fetcher.js';

let server: Server | undefined;

afterEach(async () => {
  const s = server;
  server = undefined;
  if (s !== undefined) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function readAll(body: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const chunk of body) parts.push(chunk);
  return Buffer.concat(parts).toString();
}

const fetcher = createGotFetcher({ connectTimeoutMs: 2000 });
const signal = () => new AbortController().signal;

describe('got fetcher', () => {
  it('returns status, headers and the streamed body, sending our headers', async () => {
    let auth: string | undefined;
    const base = await serve((req, res) => {
      auth = req.headers.authorization;
      res.writeHead(200, { etag: '"e1"' });
      res.end('payload');
    });
    const response = await fetcher.get(`${base}/x`, {
      headers: { authorization: 'Bearer k' },
      signal: signal(),
    });
    expect(response.status).toBe(200);
    expect(response.header('etag')).toBe('"e1"');
    expect(await readAll(response.body)).toBe('payload');
    expect(auth).toBe('Bearer k');
  });

  it('does not follow redirects and does not throw on error statuses', async () => {
    const base = await serve((req, res) => {
      res.writeHead(req.url === '/r' ? 302 : 500, { location: '/elsewhere' });
      res.end();
    });
    expect((await fetcher.get(`${base}/r`, { headers: {}, signal: signal() })).status).toBe(302);
    expect((await fetcher.get(`${base}/e`, { headers: {}, signal: signal() })).status).toBe(500);
  });

  it('does not decompress: bytes arrive exactly as sent', async () => {
    const base = await serve((_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end('not really gzip');
    });
    const response = await fetcher.get(`${base}/`, { headers: {}, signal: signal() });
    expect(await readAll(response.body)).toBe('not really gzip');
  });

  it('rejects with a transient NETWORK error when nothing listens', async () => {
    const base = await serve((_req, res) => res.end());
    const s = server;
    server = undefined;
    await new Promise((resolve) => s?.close(resolve));
    await expect(
      fetcher.get(`${base}/blob?sig=secret`, { headers: {}, signal: signal() }),
    ).rejects.toMatchObject({
      code: 'NETWORK',
      transient: true,
      // The URL without its query, and the errno code (docs/UPDATER.md §7).
      details: { url: `${base}/blob`, errno: 'ECONNREFUSED' },
    });
  });

  it('rejects when aborted', async () => {
    const base = await serve(() => undefined); // never answers
    const controller = new AbortController();
    const pending = fetcher.get(`${base}/`, { headers: {}, signal: controller.signal });
    controller.abort();
    const error = await pending.then(
      () => undefined,
      (e: unknown) => e as { code?: string },
    );
    expect(['ABORTED', 'NETWORK']).toContain(error?.code);
  });
});
