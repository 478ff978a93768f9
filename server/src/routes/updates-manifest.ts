/**
 * GET /api/updates/manifest: the format 2 answer (docs/PROTOCOL.md §2.7.6) for a machine key
 * with an active subscription (docs/INTERFACE.md §4.3, docs/PROTOCOL.md §3). `?nonce=` binds
 * the freshness statement to this request; the bearer is checked first, so an unauthenticated
 * caller learns nothing.
 */
import type { FastifyInstance } from 'fastify';
import { isNonce } from '../../../src/protocol/index.js';
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
    return reply
      .header('cache-control', 'no-store')
      .type('application/json; charset=utf-8')
      .send(bytes);
  });
}
