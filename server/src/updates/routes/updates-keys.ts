/**
 * GET /api/updates/keys: the whole key chain, oldest first (docs/PROTOCOL.md §2.7.4), for a
 * client whose trusted key set is older than the links a manifest answer carries. Same bearer
 * and subscription rule as the manifest (docs/PROTOCOL.md §3).
 */
import type { FastifyInstance } from 'fastify';
import type { MachineKeys } from '../machine-keys.js';
import type { ManifestAnswers } from '../manifest-answers.js';

export function registerUpdatesKeys(
  scope: FastifyInstance,
  keys: MachineKeys,
  answers: ManifestAnswers,
): void {
  scope.get('/api/updates/keys', (request, reply) => {
    keys.authenticate(request.headers.authorization);
    return reply
      .header('cache-control', 'no-store')
      .type('application/json; charset=utf-8')
      .send(answers.keysAnswer());
  });
}
