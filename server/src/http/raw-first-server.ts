/**
 * The node:http server under Fastify (its `serverFactory`), on every real port: the socket
 * limits of docs/SERVER.md §Limits (head, body, keep-alive and idle timeouts; the connection
 * cap with its descriptor reserve), the request guard (nosniff, one Host, CONNECT answered),
 * then the raw fast path (docs/ARCHITECTURE.md §Server): each request is offered to the
 * modules' `handleRaw` first (ServerModule) and the rest goes to Fastify. The raw handlers are
 * filled only without --dev, where the request log and one-shot faults need not see them.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { ConnectionGuard } from '#shared/connection-guard.js';
import { limitSockets, socketServerOptions, type SocketLimits } from '#shared/socket-limits.js';
import { guardRequest, refuseConnect } from './request-guard.js';

export type { SocketLimits } from '#shared/socket-limits.js';

/** Answers a request ahead of Fastify's router; true when it did. */
export type RawHandler = (request: IncomingMessage, response: ServerResponse) => boolean;

/** What the factory made, for the describe() line and the dev request log. */
export interface ServerParts {
  guard: ConnectionGuard | undefined;
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
    const server = createServer(socketServerOptions(limits), (request, response) => {
      if (guardRequest(request, response)) return;
      for (const raw of handlers) if (raw(request, response)) return;
      handler(request, response);
    });
    parts.guard = limitSockets(server, limits);
    refuseConnect(server);
    return server;
  };
}
