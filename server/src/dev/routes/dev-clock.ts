/**
 * GET /api/dev/clock and POST /api/dev/clock {"advance_ms": N}: the server clock only moves
 * forward (server/src/platform/clock.ts), so expiry can be tested without waiting.
 */
import type { FastifyInstance } from 'fastify';
import { MAX_CLOCK_MS, type ServerClock } from '../../platform/clock.js';
import { HttpError } from '../../http/http-error.js';
import { bodyObject } from '../../http/json-body.js';
import { declareShapes, optionalObject, refuseUndeclared } from '../../http/route-schema.js';

/** Ten years: far enough for every expiry in the service, small enough to stay exact. */
export const MAX_ADVANCE_MS = 10 * 365 * 24 * 3600 * 1000;

function clockBody(clock: ServerClock) {
  return { ok: true, now: new Date(clock.now()).toISOString(), offset_ms: clock.offsetMs };
}

const ADVANCE_SHAPES = declareShapes({
  body: optionalObject(
    { advance_ms: { type: 'integer', minimum: 0, maximum: MAX_ADVANCE_MS } },
    false,
  ),
});

export function registerDevClock(scope: FastifyInstance, clock: ServerClock): void {
  scope.get('/api/dev/clock', () => clockBody(clock));
  scope.post('/api/dev/clock', ADVANCE_SHAPES, (request) => {
    const advance = bodyObject(request.body)['advance_ms'];
    if (
      typeof advance !== 'number' ||
      !Number.isSafeInteger(advance) ||
      advance < 0 ||
      advance > MAX_ADVANCE_MS
    ) {
      throw new HttpError(
        400,
        'INVALID_ADVANCE',
        `advance_ms must be an integer from 0 to ${MAX_ADVANCE_MS}`,
      );
    }
    if (clock.now() + advance > MAX_CLOCK_MS) {
      const limit = new Date(MAX_CLOCK_MS).toISOString();
      throw new HttpError(400, 'CLOCK_LIMIT', `advance_ms would move the clock past ${limit}`);
    }
    refuseUndeclared(request);
    clock.advance(advance);
    return clockBody(clock);
  });
}
