/**
 * The JSON body policy of the foundation's routes: an empty body with Content-Type
 * application/json counts as "no body" (the bodies of mint, reset, ... are optional), anything
 * else must be valid JSON or gets 400 MALFORMED_JSON. Installed inside encapsulated plugins
 * only, so other areas keep Fastify's default parser (and can replace it in their own scope).
 */
import type { FastifyInstance } from 'fastify';
import { HttpError } from './http-error.js';

/** Replaces the application/json parser in `scope` (an encapsulated plugin). */
export function useLenientJson(scope: FastifyInstance): void {
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser(
    'application/json',
    { parseAs: 'string' },
    (_request, body: string | Buffer, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (text.trim().length === 0) {
        done(null, undefined);
        return;
      }
      try {
        done(null, JSON.parse(text) as unknown);
      } catch (cause) {
        done(
          new HttpError(400, 'MALFORMED_JSON', 'the body is not valid JSON', { cause }),
          undefined,
        );
      }
    },
  );
}

/** Narrows an optional JSON body to an object; absent is `{}`, anything else is a 400. */
export function bodyObject(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, 'INVALID_BODY', 'the body must be a JSON object');
  }
  return body as Record<string, unknown>;
}
