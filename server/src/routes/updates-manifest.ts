/**
 * GET /api/updates/manifest: the format 2 answer (docs/PROTOCOL.md §2.7.6) for a machine key
 * with an active subscription (docs/INTERFACE.md §4.3, docs/PROTOCOL.md §3). `?nonce=` binds
 * the freshness statement to this request; the bearer is checked first, so an unauthenticated
 * caller learns nothing. An answer without a nonce carries an ETag of its bytes and is 304 to
 * a matching If-None-Match; a nonce answer is unique, so it is never 304 and has no ETag.
 */
import type { FastifyInstance } from 'fastify';
import { isNonce } from '../../../src/protocol/index.js';
import { entityTagOf, noneMatch } from '../http/entity-tag.js';
import { HttpError } from '../http/http-error.js';
import type { MachineKeys } from '../updates/machine-keys.js';
import type { ManifestAnswers } from '../updates/manifest-answers.js';

/** The request's nonce: absent, or exactly one of 16 to 64 base64url characters. */
export function nonceOf(query: unknown): string | undefined {
  const value = (query as Record<string, unknown> | undefined)?.['nonce'];
  if (value === undefined) return undefined;
  if (!isNonce(value)) {
    throw new HttpError(
      400,
      'INVALID_NONCE',
      'nonce must be one value of 16 to 64 base64url characters',
    );
  }
  return value;
}

export function registerUpdatesManifest(
  scope: FastifyInstance,
  keys: MachineKeys,
  answers: ManifestAnswers,
): void {
  scope.get('/api/updates/manifest', async (request, reply) => {
    keys.authenticate(request.headers.authorization);
    const nonce = nonceOf(request.query);
    const bytes =
      nonce === undefined ? await answers.answer() : await answers.answerWithNonce(nonce);
    if (bytes === undefined) throw new HttpError(404, 'NO_RELEASE', 'nothing is published');
    reply.header('cache-control', 'no-store');
    if (nonce === undefined) {
      const tag = entityTagOf(bytes);
      reply.header('etag', tag);
      if (noneMatch(request.headers['if-none-match'], tag)) return reply.code(304).send();
    }
    return reply.type('application/json; charset=utf-8').send(bytes);
  });
}
