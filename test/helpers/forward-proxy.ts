/**
 * A tiny HTTP proxy on loopback for the network tests (docs/DESKTOP.md "Network"): forward
 * proxying of absolute-form requests (`GET http://host/path`, RFC 9112 §3.2.2) and CONNECT
 * tunnels (RFC 9110 §9.3.6), optionally behind Basic proxy authentication (407). Every host is
 * routed to `target` (127.0.0.1:PORT), so a test can give the client a name that does not
 * resolve (`registry.test`, RFC 6761): a request that skipped the proxy fails, one that went
 * through it arrives. It logs what passed.
 *
 * Also `proxyFetch`, a minimal `fetch` that sends every request to such a proxy (the stand-in
 * for Electron's session fetch with a proxy configured).
 */
import { connect, type Socket } from 'node:net';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

export interface ProxyLogEntry {
  readonly method: string;
  /** Absolute URL (forward) or host:port (CONNECT). */
  readonly target: string;
  readonly range: string | undefined;
}

export interface ForwardProxy {
  readonly url: string;
  readonly log: ProxyLogEntry[];
  close(): Promise<void>;
}

export interface ForwardProxyOptions {
  /** Where every request goes, whatever host it names. */
  readonly target: { readonly host: string; readonly port: number };
  /** `user:password` required in Proxy-Authorization (Basic); omitted: no authentication. */
  readonly credentials?: string;
}

function authorised(req: IncomingMessage, credentials: string | undefined): boolean {
  if (credentials === undefined) return true;
  return (
    req.headers['proxy-authorization'] === `Basic ${Buffer.from(credentials).toString('base64')}`
  );
}

/** Starts the proxy on 127.0.0.1 (a random port). */
export async function startForwardProxy(options: ForwardProxyOptions): Promise<ForwardProxy> {
  const log: ProxyLogEntry[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '';
    if (!/^https?:\/\//.test(url)) {
      res.writeHead(400).end('absolute-form only');
      return;
    }
    if (!authorised(req, options.credentials)) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"' }).end();
      return;
    }
    log.push({ method: req.method ?? 'GET', target: url, range: req.headers.range });
    const parsed = new URL(url);
    const headers = { ...req.headers, host: parsed.host };
    delete headers['proxy-authorization'];
    const upstream = httpRequest(
      {
        host: options.target.host,
        port: options.target.port,
        method: req.method,
        path: `${parsed.pathname}${parsed.search}`,
        headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    if (!authorised(req, options.credentials)) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
      return;
    }
    log.push({ method: 'CONNECT', target: req.url ?? '', range: undefined });
    const upstream = connect(options.target.port, options.target.host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    close: () =>
      new Promise<void>((done) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      }),
  };
}

/**
 * A `fetch` for plain-http URLs that sends every request to `proxyUrl` in absolute form,
 * with `credentials` as Basic proxy authentication. Honours the signal; the body streams, a
 * gzip one inflated as fetch() inflates it.
 */
export function proxyFetch(
  proxyUrl: string,
  credentials?: string,
): (url: string | URL, init?: RequestInit) => Promise<Response> {
  const proxy = new URL(proxyUrl);
  return (url, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, name) => (headers[name] = value));
      if (credentials !== undefined) {
        headers['proxy-authorization'] = `Basic ${Buffer.from(credentials).toString('base64')}`;
      }
      const req = httpRequest(
        {
          host: proxy.hostname,
          port: Number(proxy.port),
          method: init.method ?? 'GET',
          path: String(url),
          headers,
          ...(init.signal === undefined || init.signal === null ? {} : { signal: init.signal }),
        },
        (res) => {
          const answer = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (typeof value === 'string') answer.set(name, value);
          }
          const status = res.statusCode ?? 502;
          const nullBody = status === 204 || status === 304;
          // As fetch() does (and src/node/http/fetch-fetcher.ts relies on): a gzip body is inflated.
          const body = /^\s*(x-)?gzip\s*$/i.test(answer.get('content-encoding') ?? '')
            ? res.pipe(createGunzip())
            : res;
          resolve(
            new Response(
              nullBody ? null : (Readable.toWeb(body) as unknown as ReadableStream<Uint8Array>),
              { status, headers: answer },
            ),
          );
        },
      );
      req.on('error', reject);
      req.end(typeof init.body === 'string' ? init.body : undefined);
    });
}
