/**
 * GET /api/updates/tuf/{name}: the TUF repository's metadata by consistent-snapshot name
 * (docs/PROTOCOL.md §TUF repository, Paths): `N.root.json`, `timestamp.json`,
 * `N.snapshot.json`, `N.targets.json`. Same bearer and subscription rule as the manifest,
 * checked first. `timestamp.json` changes in place, so it is never cached; versioned names
 * never change once written. `timestamp.json?nonce=X` is signed for that request with the
 * nonce in it (docs/PROTOCOL.md §TUF repository, Nonce).
 */
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../../http/http-error.js';
import { declareShapes, refuseUndeclared } from '../../http/route-schema.js';
import type { MachineKeys } from '../machine-keys.js';
import { nonceOf } from './updates-manifest.js';
import { TIMESTAMP_FILE } from '../tuf/tuf-layout.js';
import type { TufRepository } from '../tuf/tuf-repository.js';

export const TUF_ROUTE_PREFIX = '/api/updates/tuf';

/** Any name is looked up; an unknown one is a 404 (docs/PROTOCOL.md §TUF repository). */
const METADATA_SHAPES = declareShapes({
  params: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
});

export function registerTufMetadata(
  scope: FastifyInstance,
  keys: MachineKeys,
  repository: TufRepository,
): void {
  scope.get(`${TUF_ROUTE_PREFIX}/:name`, METADATA_SHAPES, async (request, reply) => {
    keys.authenticate(request.headers.authorization);
    refuseUndeclared(request);
    const { name } = request.params as { name: string };
    const nonce = name === TIMESTAMP_FILE ? nonceOf(request.query) : undefined;
    const bytes = await repository.file(name, nonce);
    if (bytes === undefined) throw new HttpError(404, 'NOT_FOUND', `no metadata ${name}`);
    reply.header(
      'cache-control',
      name === TIMESTAMP_FILE ? 'no-store' : 'private, max-age=31536000, immutable',
    );
    reply.type('application/json; charset=utf-8');
    return reply.send(Buffer.from(bytes));
  });
}
