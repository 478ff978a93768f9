/**
 * GET /api/chain/active (interface §4.4, issue 4): public, CORS-open, always 200. The handler only
 * parses two numbers and sends cached bytes with precomputed headers: no per-request JSON work.
 */
import type { FastifyInstance } from 'fastify';
import { parseActivityQuery } from '../chain/activity-query.js';
import type { CachedBody } from '../chain/ranking-cache.js';

export const CHAIN_ACTIVE_PATH = '/api/chain/active';

/** What the route needs from the chain module. */
export interface ActivitySource {
  readonly retainedUnits: number;
  /** Cached response for already-clamped values. */
  body(window: number, limit: number): CachedBody;
}

/** Registers GET (and HEAD, by Fastify) plus the CORS preflight of /api/chain/active. */
export function registerChainActive(app: FastifyInstance, source: ActivitySource): void {
  app.get(CHAIN_ACTIVE_PATH, (request, reply) => {
    const { window, limit } = parseActivityQuery(request.query, source.retainedUnits);
    const body = source.body(window, limit);
    // A public widget feed: any origin may read it (issue 4); no credentials are involved.
    return reply
      .code(200)
      .header('access-control-allow-origin', '*')
      .header('content-type', body.contentType)
      .header('content-length', body.contentLength)
      .send(body.bytes);
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
