/**
 * The node:http server under Fastify (its `serverFactory`), on every real port: the socket
 * limits of docs/SERVER.md §Limits (head, body, keep-alive and idle timeouts; the connection
 * cap with its descriptor reserve), the request guard (nosniff, one Host, CONNECT answered),
 * then the raw fast path (docs/ARCHITECTURE.md §Server): each request is offered to the
 * modules' `handleRaw` first (ServerModule) and the rest goes to Fastify. The raw handlers are
 * filled only without --dev, where the request log and one-shot faults need not see them.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ConnectionGuard } from './connection-guard.js';
import { connectionCap, openFilesLimit } from './fd-limit.js';
import { guardRequest, refuseConnect } from './request-guard.js';

/** Answers a request ahead of Fastify's router; true when it did. */
export type RawHandler = (request: IncomingMessage, response: ServerResponse) => boolean;

/** The socket limits, as ServerOptions names them. */
export interface SocketLimits {
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly maxConnections: number;
  readonly fdReserve: number;
}

/** What the factory made, for the describe() line and the dev request log. */
export interface ServerParts {
  guard: ConnectionGuard | undefined;
}

/**
 * How often node looks for heads and bodies past their timeout: often enough that a limit
 * is kept within a quarter of itself, never more than once per 50 ms.
 */
export function checkingIntervalMs(limits: SocketLimits): number {
  return Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4)));
}

/**
 * Fastify's `serverFactory` over `handlers`, which may be filled after the app is built (the
 * modules exist only then). `parts` receives the connection guard.
 */
export function rawFirstServerFactory(
  handlers: readonly RawHandler[],
  limits: SocketLimits,
  parts: ServerParts = { guard: undefined },
) {
  return (handler: (request: IncomingMessage, response: ServerResponse) => void): Server => {
    const server = createServer(
      {
        // node refuses a head timeout longer than the whole request's.
        headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
        requestTimeout: limits.requestTimeoutMs,
        connectionsCheckingInterval: checkingIntervalMs(limits),
      },
      (request, response) => {
        if (guardRequest(request, response)) return;
        for (const raw of handlers) if (raw(request, response)) return;
        handler(request, response);
      },
    );
    server.keepAliveTimeout = limits.keepAliveTimeoutMs;
    // Without a 'timeout' listener node destroys a socket idle this long (reads and writes).
    server.setTimeout(limits.idleTimeoutMs);
    const guard = new ConnectionGuard(
      connectionCap(limits.maxConnections, limits.fdReserve, openFilesLimit()),
    );
    guard.attach(server);
    parts.guard = guard;
    refuseConnect(server);
    return server;
  };
}
