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
  type BridgeEventSources,
  type BridgeHandlers,
  type EventName,
} from '#preload/ipc-contract.js';
import { APP_HOST, APP_SCHEME, createAppProtocolHandler } from '#app/app-protocol.js';
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
import {
  answerFailure,
  isOperation,
  readJsonBody,
  send,
  WEB_SECURITY_HEADERS,
} from './web-answer.js';
import { WebRefusal } from './web-errors.js';
import { limitSockets, socketServerOptions, type SocketLimits } from '#shared/socket-limits.js';
import { WEB_SOCKET_LIMITS } from './web-limits.js';

export { WEB_SECURITY_HEADERS } from './web-answer.js';

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

/** What answering one request needs from the running window. */
interface RequestContext {
  readonly options: WebWindowOptions;
  readonly token: string;
  readonly maxBodyBytes: number;
  readonly port: () => number;
  readonly streams: ReturnType<typeof createEventStreams>;
  readonly serveFile: (res: ServerResponse, path: string) => Promise<void>;
}

/** The request's host (checked against the listen address first) and its URL. */
function parseTarget(req: IncomingMessage, ctx: RequestContext): { host: string; url: URL } {
  const host = req.headers.host;
  // DNS rebinding: a foreign name pointed at our address is refused before anything else.
  if (
    !isAllowedHost(host, { host: ctx.options.listen.host, port: ctx.port() }) ||
    host === undefined
  ) {
    throw new WebRefusal('HOST_REFUSED', 'this server answers only to its own address');
  }
  try {
    return { host, url: new URL(req.url ?? '/', `http://${host}`) };
  } catch {
    // An absolute-form target that is no URL (`GET http://[`) is the client's error, not an
    // INTERNAL failure logged as the app's (docs/SECURITY.md §6).
    throw new WebRefusal('BAD_REQUEST', 'the request target is not a URL');
  }
}

/** The token's one use: exchanged for the cookie, then dropped from the address. */
function exchangeToken(
  res: ServerResponse,
  ctx: RequestContext,
  method: string,
  url: URL,
  presented: string,
): void {
  if (method !== 'GET' || url.pathname !== '/') {
    throw new WebRefusal('BAD_REQUEST', 'the token is accepted on the page address only');
  }
  if (!secretMatches(presented, ctx.token)) {
    throw new WebRefusal('UNAUTHORIZED', 'the access token is not this server’s');
  }
  res.writeHead(303, {
    ...WEB_SECURITY_HEADERS,
    'set-cookie': sessionCookie(ctx.port(), ctx.token),
    location: '/',
  });
  res.end();
}

/** `POST /api/bridge/<operation>`: checked like the Electron IPC, then run. */
async function bridgeCall(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: RequestContext,
  host: string,
  url: URL,
): Promise<void> {
  if (req.method !== 'POST') throw new WebRefusal('METHOD_NOT_ALLOWED', 'bridge calls are POST');
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
  const body = await readJsonBody(req, ctx.maxBodyBytes);
  const args = (body as { args?: unknown } | null)?.args;
  if (!Array.isArray(args)) throw new WebRefusal('BAD_ARGUMENTS', 'the body is {"args": [...]}');
  const pending = runOperation(ctx.options.handlers, name, args);
  if (pending === null) throw new WebRefusal('BAD_ARGUMENTS', `${name} refused its arguments`);
  const result = await pending;
  send(res, 200, 'application/json; charset=utf-8', JSON.stringify({ ok: true, result }));
}

/** One request: host, token or cookie, then the bridge, the event stream or a file. */
async function handle(req: IncomingMessage, res: ServerResponse, ctx: RequestContext) {
  const { host, url } = parseTarget(req, ctx);
  const method = req.method ?? 'GET';
  const presented = url.searchParams.get('token');
  if (presented !== null) {
    exchangeToken(res, ctx, method, url, presented);
    return;
  }
  if (!secretMatches(readCookie(req.headers.cookie, cookieName(ctx.port())), ctx.token)) {
    throw new WebRefusal(
      'UNAUTHORIZED',
      'open the address `updater serve` printed (it carries the access token)',
    );
  }
  if (url.pathname.startsWith('/api/bridge/')) {
    await bridgeCall(req, res, ctx, host, url);
    return;
  }
  if (method !== 'GET') throw new WebRefusal('METHOD_NOT_ALLOWED', 'only GET here');
  if (url.pathname === '/api/events') {
    if (!ctx.streams.open(res, WEB_SECURITY_HEADERS)) {
      throw new WebRefusal('TOO_MANY_STREAMS', 'too many open windows');
    }
    return;
  }
  await ctx.serveFile(res, url.pathname);
}

/** Serves the renderer's files and the web bridge script (index.html with the bridge first). */
function fileServer(options: WebWindowOptions) {
  const serveStatic = createAppProtocolHandler({ rootDir: options.rendererDir });
  return async (res: ServerResponse, path: string): Promise<void> => {
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
  };
}

function listenOn(server: Server, listen: ListenAddress): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Starts the web window's server; resolves once it listens. */
export async function startWebWindow(options: WebWindowOptions): Promise<WebWindow> {
  const token = options.token ?? randomBytes(32).toString('base64url');
  const streams = createEventStreams({
    maxClients: options.maxStreams ?? 16,
    heartbeatMs: options.heartbeatMs ?? 15_000,
    maxQueuedBytes: 1024 * 1024,
  });
  const relay = <K extends EventName>(name: K): (() => void) =>
    options.events[name]((payload) => streams.broadcast(name, payload));
  const unsubscribe = EVENT_NAMES.map(relay);
  let port = 0;
  const ctx: RequestContext = {
    options,
    token,
    maxBodyBytes: options.maxBodyBytes ?? 64 * 1024,
    port: () => port,
    streams,
    serveFile: fileServer(options),
  };
  const limits = { ...WEB_SOCKET_LIMITS, ...options.socketLimits };
  const server: Server = createServer(socketServerOptions(limits), (req, res) => {
    handle(req, res, ctx).catch((error: unknown) => answerFailure(req, res, error, options.log));
  });
  limitSockets(server, limits);
  await listenOn(server, options.listen);
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
