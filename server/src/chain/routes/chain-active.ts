/**
 * GET /api/chain/active (docs/INTERFACE.md §4.4, docs/PROTOCOL.md §5): public, CORS-open, always 200. The handler only
 * parses two numbers and writes cached bytes with precomputed headers: no per-request JSON work.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { parseActivityQuery } from '../activity-query.js';
import type { CachedBody } from '../ranking-cache.js';

export const CHAIN_ACTIVE_PATH = '/api/chain/active';

/** What the route needs from the chain module. */
export interface ActivitySource {
  readonly retainedUnits: number;
  /** Cached response for already-clamped values (with each machine's series when asked). */
  body(window: number, limit: number, series: boolean): CachedBody;
}

/** Registers GET (and HEAD, by Fastify) plus the CORS preflight of /api/chain/active. */
export function registerChainActive(app: FastifyInstance, source: ActivitySource): void {
  // The handler never logs; sharing the server logger skips building a pino child per request
  // (Fastify route option childLoggerFactory), the largest per-request cost left on this route.
  const routeOptions = { childLoggerFactory: (logger: FastifyBaseLogger) => logger };
  app.get(CHAIN_ACTIVE_PATH, routeOptions, (request, reply) => {
    const { window, limit, series } = parseActivityQuery(request.query, source.retainedUnits);
    // Computed before hijacking, so a broken state still reaches Fastify's error handler.
    const body = source.body(window, limit, series);
    // Hot path (docs/CHAIN.md §Ranking): precomputed headers and bytes written straight to the
    // socket. No onSend hook exists for this route; onResponse hooks still run on 'finish'.
    // For HEAD, node:http drops the body and keeps the headers.
    reply.hijack();
    reply.raw.writeHead(200, body.headers);
    reply.raw.end(body.bytes);
  });
  // Preflight (Fetch standard, CORS protocol): only GET is offered, with no custom headers needed.
  app.options(CHAIN_ACTIVE_PATH, (_request, reply) => {
    return reply
      .code(204)
      .header('access-control-allow-origin', '*')
      .header('access-control-allow-methods', 'GET, HEAD, OPTIONS')
      .header('access-control-max-age', '86400')
      .send();
  });
}

const RAW_PREFIX = `${CHAIN_ACTIVE_PATH}?`;

/**
 * The same GET/HEAD answer without Fastify's routing, request and reply objects (docs/CHAIN.md
 * §Ranking and §Benchmark: at least 0.8x a plain node:http server). Only the exact path is
 * taken: anything else (OPTIONS, a trailing slash, another method) goes on to Fastify.
 * node:querystring has the semantics of Fastify's parser here: percent-decoding, and arrays for
 * repeated keys.
 */
export function chainActiveRaw(
  source: ActivitySource,
): (request: IncomingMessage, response: ServerResponse) => boolean {
  return (request, response) => {
    const url = request.url ?? '';
    if (request.method !== 'GET' && request.method !== 'HEAD') return false;
    let query = {};
    if (url.startsWith(RAW_PREFIX)) query = parseQuery(url.slice(RAW_PREFIX.length));
    else if (url !== CHAIN_ACTIVE_PATH) return false;
    const { window, limit, series } = parseActivityQuery(query, source.retainedUnits);
    const body = source.body(window, limit, series);
    response.writeHead(200, body.headers);
    response.end(body.bytes);
    return true;
  };
}
