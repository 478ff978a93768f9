/**
 * GET /api/dev/requests[?since=SEQ&limit=N]: the request log, secrets redacted.
 * DELETE /api/dev/requests clears it. `counters` beside it: the rate limits' refusals and
 * counted failures, the connection cap's evictions and refusals (docs/SERVER.md §Rate limits).
 */
import type { FastifyInstance } from 'fastify';
import { MAX_ENTRIES, type RequestLog } from '../request-log.js';
import { HttpError } from '../../http/http-error.js';
import { declareShapes, refuseUndeclared } from '../../http/route-schema.js';

function intParam(value: unknown, name: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^\d{1,15}$/.test(value) || Number(value) > max) {
    throw new HttpError(400, 'INVALID_QUERY', `${name} must be an integer from 0 to ${max}`);
  }
  return Number(value);
}

const COUNT = { type: 'string', pattern: '^\\d{1,15}$' };
const REQUESTS_SHAPES = declareShapes({
  querystring: { type: 'object', properties: { since: COUNT, limit: COUNT } },
});

export function registerDevRequests(
  scope: FastifyInstance,
  log: RequestLog,
  counters: () => Record<string, unknown> = () => ({}),
): void {
  scope.get('/api/dev/requests', REQUESTS_SHAPES, (request) => {
    const query = request.query as Record<string, unknown>;
    const since = intParam(query['since'], 'since', 0, Number.MAX_SAFE_INTEGER);
    const limit = intParam(query['limit'], 'limit', MAX_ENTRIES, MAX_ENTRIES);
    refuseUndeclared(request);
    return { ok: true, requests: log.list(since, limit), counters: counters() };
  });
  scope.delete('/api/dev/requests', () => {
    log.clear();
    return { ok: true };
  });
}
