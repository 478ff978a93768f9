/**
 * The web window: the tray window's own page (the same renderer bundle) served on a local
 * HTTP port, with the bridge contract (src/preload/ipc-contract.ts) carried as
 * `POST /api/bridge/<operation>` and its push events as server-sent events on
 * `GET /api/events`. Generic over the contract: a new operation needs no code here.
 * Security rules and the threat model: docs/SECURITY.md §Web window.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  EVENT_NAMES,
  OPERATIONS,
  type BridgeEventSources,
  type BridgeHandlers,
  type EventName,
  type OperationName,
} from '#preload/ipc-contract.js';
import {
  APP_HOST,
  APP_SCHEME,
  CONTENT_SECURITY_POLICY,
  createAppProtocolHandler,
} from '#app/app-protocol.js';
import { runOperation } from '#app/bridge-handlers.js';
import { createEventStreams } from './event-stream.js';
import {
  cookieName,
  isAllowedHost,
  isSameOrigin,
  readCookie,
  secretMatches,
  sessionCookie,
  urlHostOf,
  type ListenAddress,
} from './web-access.js';
import { refusalPage, wantsPage } from './refusal-page.js';
import { WebRefusal } from './web-errors.js';
import { limitSockets, socketServerOptions, type SocketLimits } from '#shared/socket-limits.js';
import { WEB_SOCKET_LIMITS } from './web-limits.js';

export interface WebWindowOptions {
  readonly listen: ListenAddress;
  /** The built renderer (dist/app/renderer). */
  readonly rendererDir: string;
  /** The built web bridge script (dist/app/web/web-bridge.js). */
  readonly bridgeScript: string;
  readonly handlers: BridgeHandlers;
  readonly events: BridgeEventSources;
  /** The access token (default: 32 random bytes, base64url). */
  readonly token?: string;
  readonly maxBodyBytes?: number;
  readonly maxStreams?: number;
  /** Timeouts and the connection cap (default WEB_SOCKET_LIMITS). */
  readonly socketLimits?: Partial<SocketLimits>;
  readonly heartbeatMs?: number;
  readonly log?: (level: WebLogLevel, message: string) => void;
}

/**
 * Levels of the window's log (docs/PROTOCOL.md §7): `error` for a failure of ours (a handler
 * that threw), `debug` for a client that went away mid-request, which is normal (a tab closed,
 * a fetch aborted, a page reloaded while a call was in flight).
 */
export type WebLogLevel = 'debug' | 'error';

export interface WebWindow {
  /** The address a person opens: `http://HOST:PORT/?token=…`. */
  readonly url: string;
  /** `http://HOST:PORT`, without the token. */
  readonly origin: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Where the page loads the bridge from; inserted before the renderer's own script. */
export const BRIDGE_SCRIPT_PATH = '/web-bridge.js';
const RENDERER_SCRIPT_TAG = '<script src="renderer.js" defer></script>';

/** Headers on every answer: the Electron window's CSP, and no framing, sniffing or caching. */
export const WEB_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

/** The renderer's index.html with the web bridge loaded first (same CSP: both are 'self'). */
export function withBridgeScript(html: string): string {
  if (!html.includes(RENDERER_SCRIPT_TAG)) {
    throw new Error('index.html no longer loads renderer.js as the web window expects');
  }
  return html.replace(
    RENDERER_SCRIPT_TAG,
    `<script src="${BRIDGE_SCRIPT_PATH.slice(1)}" defer></script>\n    ${RENDERER_SCRIPT_TAG}`,
  );
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { ...WEB_SECURITY_HEADERS, 'content-type': type });
  res.end(body);
}

function refuse(res: ServerResponse, refusal: WebRefusal, page = false): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  // A person who opened the address sees words, a bridge call reads the error body.
  if (page) send(res, refusal.status, 'text/html; charset=utf-8', refusalPage(refusal));
  else send(res, refusal.status, 'application/json; charset=utf-8', JSON.stringify(refusal));
}

/** Reads a JSON body up to maxBytes; refuses more, and anything that is not JSON. */
async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > maxBytes) throw new WebRefusal('BODY_TOO_LARGE', `at most ${maxBytes} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new WebRefusal('BODY_TOO_LARGE', `at most ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new WebRefusal('BAD_REQUEST', 'the body is not JSON');
  }
}

/** Errors of a connection the client dropped (a reset, a request aborted mid-body). */
const CLIENT_GONE = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE']);

/**
 * True when `error` is the client leaving: its code says so and the request's connection is
 * indeed gone. The same code from a handler while the client still waits (a socket of its
 * own) is a failure of ours.
 */
function clientLeft(req: IncomingMessage, error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CLIENT_GONE.has(code) && req.socket.destroyed;
}

function isOperation(name: string): name is OperationName {
  return Object.prototype.hasOwnProperty.call(OPERATIONS, name);
}

/** Starts the web window's server; resolves once it listens. */
export async function startWebWindow(options: WebWindowOptions): Promise<WebWindow> {
  const token = options.token ?? randomBytes(32).toString('base64url');
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024;
  const serveStatic = createAppProtocolHandler({ rootDir: options.rendererDir });
  const streams = createEventStreams({
    maxClients: options.maxStreams ?? 16,
    heartbeatMs: options.heartbeatMs ?? 15_000,
    maxQueuedBytes: 1024 * 1024,
  });
  const relay = <K extends EventName>(name: K): (() => void) =>
    options.events[name]((payload) => streams.broadcast(name, payload));
  const unsubscribe = EVENT_NAMES.map(relay);
  let port = 0;
  const listen = (): ListenAddress => ({ host: options.listen.host, port });

  async function serveFile(res: ServerResponse, path: string): Promise<void> {
    if (path === BRIDGE_SCRIPT_PATH) {
      const body = await readFile(options.bridgeScript).catch(() => null);
      if (body === null) throw new WebRefusal('NOT_FOUND', 'the web bridge is not built');
      send(res, 200, 'text/javascript; charset=utf-8', body);
      return;
    }
    const file = path === '/' ? '/index.html' : path;
    const answer = await serveStatic(new Request(`${APP_SCHEME}://${APP_HOST}${file}`));
    if (answer.status !== 200) throw new WebRefusal('NOT_FOUND', 'no such file');
    const type = answer.headers.get('content-type') ?? 'application/octet-stream';
    if (file === '/index.html') send(res, 200, type, withBridgeScript(await answer.text()));
    else send(res, 200, type, Buffer.from(await answer.arrayBuffer()));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const host = req.headers.host;
    // DNS rebinding: a foreign name pointed at our address is refused before anything else.
    if (!isAllowedHost(host, listen()) || host === undefined) {
      throw new WebRefusal('HOST_REFUSED', 'this server answers only to its own address');
    }
    let url: URL;
    try {
      url = new URL(req.url ?? '/', `http://${host}`);
    } catch {
      // An absolute-form target that is no URL (`GET http://[`) is the client's error, not an
      // INTERNAL failure logged as the app's (docs/SECURITY.md §6).
      throw new WebRefusal('BAD_REQUEST', 'the request target is not a URL');
    }
    const method = req.method ?? 'GET';
    const presented = url.searchParams.get('token');
    if (presented !== null) {
      // The token's one use: exchange it for the cookie, then drop it from the address.
      if (method !== 'GET' || url.pathname !== '/') {
        throw new WebRefusal('BAD_REQUEST', 'the token is accepted on the page address only');
      }
      if (!secretMatches(presented, token)) {
        throw new WebRefusal('UNAUTHORIZED', 'the access token is not this server’s');
      }
      res.writeHead(303, {
        ...WEB_SECURITY_HEADERS,
        'set-cookie': sessionCookie(port, token),
        location: '/',
      });
      res.end();
      return;
    }
    if (!secretMatches(readCookie(req.headers.cookie, cookieName(port)), token)) {
      throw new WebRefusal(
        'UNAUTHORIZED',
        'open the address `updater serve` printed (it carries the access token)',
      );
    }
    if (url.pathname.startsWith('/api/bridge/')) {
      if (method !== 'POST') throw new WebRefusal('METHOD_NOT_ALLOWED', 'bridge calls are POST');
      // Cross-site requests (a form post, a fetch from another page) carry a foreign Origin.
      if (!isSameOrigin(req.headers.origin, host)) {
        throw new WebRefusal('ORIGIN_REFUSED', 'bridge calls come from this page only');
      }
      const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
      if (type !== 'application/json') {
        throw new WebRefusal('UNSUPPORTED_MEDIA_TYPE', 'bridge calls send application/json');
      }
      const name = url.pathname.slice('/api/bridge/'.length);
      if (!isOperation(name)) throw new WebRefusal('NOT_FOUND', 'no such operation');
      const body = await readJsonBody(req, maxBodyBytes);
      const args = (body as { args?: unknown } | null)?.args;
      if (!Array.isArray(args))
        throw new WebRefusal('BAD_ARGUMENTS', 'the body is {"args": [...]}');
      const pending = runOperation(options.handlers, name, args);
      if (pending === null) throw new WebRefusal('BAD_ARGUMENTS', `${name} refused its arguments`);
      const result = await pending;
      send(res, 200, 'application/json; charset=utf-8', JSON.stringify({ ok: true, result }));
      return;
    }
    if (method !== 'GET') throw new WebRefusal('METHOD_NOT_ALLOWED', 'only GET here');
    if (url.pathname === '/api/events') {
      if (!streams.open(res, WEB_SECURITY_HEADERS)) {
        throw new WebRefusal('TOO_MANY_STREAMS', 'too many open windows');
      }
      return;
    }
    await serveFile(res, url.pathname);
  }

  const limits = { ...WEB_SOCKET_LIMITS, ...options.socketLimits };
  const server: Server = createServer(socketServerOptions(limits), (req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof WebRefusal) {
        // Drain what the client still sends, so the refusal is read rather than reset.
        req.resume();
        refuse(res, error, wantsPage(req));
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      if (clientLeft(req, error)) {
        // No one is left to answer: not a failure of the app (docs/PROTOCOL.md §7).
        options.log?.('debug', `web window: the client left mid-request (${message})`);
        res.destroy();
        return;
      }
      options.log?.('error', `web window: ${message}`);
      refuse(res, new WebRefusal('INTERNAL', 'the app failed to answer; see the log'));
    });
  });
  limitSockets(server, limits);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.listen.port, options.listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const origin = `http://${urlHostOf(options.listen.host)}:${port}`;
  return {
    url: `${origin}/?token=${token}`,
    origin,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const off of unsubscribe) off();
        streams.closeAll();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
