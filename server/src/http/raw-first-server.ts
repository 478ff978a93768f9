/**
 * The raw fast path (docs/ARCHITECTURE.md §Server): a node:http server that offers each request
 * to the modules' `handleRaw` first (ServerModule) and hands the rest to Fastify. Used only on
 * a real port without --dev, where the request log and one-shot faults need not see them.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** Answers a request ahead of Fastify's router; true when it did. */
export type RawHandler = (request: IncomingMessage, response: ServerResponse) => boolean;

/**
 * Fastify's `serverFactory` over `handlers`, which may be filled after the app is built (the
 * modules exist only then).
 */
export function rawFirstServerFactory(handlers: readonly RawHandler[]) {
  return (
    handler: (request: IncomingMessage, response: ServerResponse) => void,
    opts: Record<string, unknown>,
  ): Server => {
    const server = createServer((request, response) => {
      for (const raw of handlers) if (raw(request, response)) return;
      handler(request, response);
    });
    // What Fastify sets on the servers it creates itself (lib/server.js getServerInstance).
    server.keepAliveTimeout = opts['keepAliveTimeout'] as number;
    server.requestTimeout = opts['requestTimeout'] as number;
    server.setTimeout(opts['connectionTimeout'] as number);
    const perSocket = opts['maxRequestsPerSocket'] as number;
    if (perSocket > 0) server.maxRequestsPerSocket = perSocket;
    return server;
  };
}
