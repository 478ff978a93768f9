/**
 * GET /api/updates/tuf/targets/{dir/}{SHA256}.{basename}: a target file by its
 * consistent-snapshot name (TUF spec §5.7.3), streamed from the blob store by its hash. Same
 * bearer rule as the manifest. Content-addressed: the name's path is not looked up, since a
 * client checks length and hashes against signed targets metadata (TUF spec §5.7.3) and a
 * blob is only ever the bytes of its hash.
 */
import { open } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../../http/http-error.js';
import { declareShapes, refuseUndeclared } from '../../http/route-schema.js';
import type { BlobStore } from '../../store/blob-store.js';
import type { MachineKeys } from '../machine-keys.js';
import { parseTargetFileName } from '../tuf/tuf-layout.js';
import { TUF_ROUTE_PREFIX } from './tuf-metadata.js';

const TARGET_SHAPES = declareShapes({
  params: { type: 'object', required: ['*'], properties: { '*': { type: 'string' } } },
});

export function registerTufTargets(
  scope: FastifyInstance,
  keys: MachineKeys,
  blobs: BlobStore,
): void {
  scope.get(`${TUF_ROUTE_PREFIX}/targets/*`, TARGET_SHAPES, async (request, reply) => {
    keys.authenticate(request.headers.authorization);
    const name = (request.params as { '*': string })['*'];
    const target = parseTargetFileName(name);
    if (target === undefined) {
      throw new HttpError(404, 'ARTIFACT_NOT_FOUND', 'not a consistent-snapshot target name');
    }
    refuseUndeclared(request);
    let handle;
    try {
      handle = await open(blobs.pathOf(target.sha256), 'r');
    } catch {
      throw new HttpError(404, 'ARTIFACT_NOT_FOUND', 'no target with this hash');
    }
    const { size } = await handle.stat();
    void reply
      .header('content-length', String(size))
      .header('cache-control', 'private, max-age=31536000, immutable')
      .type('application/octet-stream');
    return reply.send(handle.createReadStream({ highWaterMark: 256 * 1024 }));
  });
}
