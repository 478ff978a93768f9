/**
 * GET /api/updates/manifest: the current release's envelope bytes exactly as stored and
 * signed, for a machine key with an active subscription (docs/INTERFACE.md §4.3).
 */
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../http/http-error.js';
import type { MachineKeys } from '../updates/machine-keys.js';
import type { ReleaseStore } from '../updates/release-store.js';

export function registerUpdatesManifest(
  scope: FastifyInstance,
  keys: MachineKeys,
  releases: ReleaseStore,
): void {
  scope.get('/api/updates/manifest', (request, reply) => {
    keys.authenticate(request.headers.authorization);
    const release = releases.current;
    if (release === undefined) throw new HttpError(404, 'NO_RELEASE', 'nothing is published');
    return reply
      .header('cache-control', 'no-store')
      .type('application/json; charset=utf-8')
      .send(release.envelope);
  });
}
