/**
 * GET /api/updates/manifest: the format 2 answer (docs/PROTOCOL.md §2.7.6) for a machine key
 * with an active subscription (docs/INTERFACE.md §4.3, docs/PROTOCOL.md §3). `?nonce=` binds
 * the freshness statement to this request; the bearer is checked first, so an unauthenticated
 * caller learns nothing. An answer without a nonce carries an ETag of its bytes and is 304 to
 * a matching If-None-Match; a nonce answer is unique, so it is never 304 and has no ETag.
 * An answer of at least GZIP_MIN_BYTES goes gzip-coded to a request that accepts gzip, its
 * ETag made weak (the identity tag behind `W/`, as nginx does), with `Vary: Accept-Encoding`
 * on every answer (docs/PROTOCOL.md §2.7.6, Content coding). `?format=tuf` asks for the TUF
 * bundle instead (docs/PROTOCOL.md §TUF repository, One request), under the same rules.
 */
import type { FastifyInstance } from 'fastify';
import { isNonce, NONCE_PATTERN } from '#protocol';
import { acceptsGzip } from '../../http/accept-encoding.js';
import { entityTagOf, noneMatch } from '../../http/entity-tag.js';
import { HttpError } from '../../http/http-error.js';
import { declareShapes, refuseUndeclared } from '../../http/route-schema.js';
import type { MachineKeys } from '../machine-keys.js';
import type { ManifestAnswer, ManifestAnswers } from '../manifest-answers.js';
import type { BundleAnswers } from '../tuf/bundle-answers.js';
import { BUNDLE_FORMAT } from '../tuf/tuf-bundle.js';

/**
 * Smaller answers go as they are: gzip saves little on them and costs its header (nginx's
 * `gzip_min_length 1024` draws the same line). A format 2 answer is over 3 KB in practice.
 */
export const GZIP_MIN_BYTES = 1024;

/** The request's nonce: absent, or exactly one of 16 to 64 base64url characters. */
export const MANIFEST_PATH = '/api/updates/manifest';

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

/** Other query parameters are ignored, as they always were. */
const MANIFEST_SHAPES = declareShapes({
  querystring: {
    type: 'object',
    properties: {
      nonce: { type: 'string', pattern: NONCE_PATTERN.source },
      format: { type: 'string' },
    },
  },
});

/** True for `?format=tuf`, false without `format`; any other value is 400 BAD_REQUEST. */
export function wantsBundle(query: unknown): boolean {
  const value = (query as Record<string, unknown> | undefined)?.['format'];
  if (value === undefined) return false;
  if (value !== BUNDLE_FORMAT) {
    throw new HttpError(400, 'BAD_REQUEST', `format must be "${BUNDLE_FORMAT}" when given`);
  }
  return true;
}

export function registerUpdatesManifest(
  scope: FastifyInstance,
  keys: MachineKeys,
  answers: ManifestAnswers,
  bundles: BundleAnswers,
): void {
  scope.get(MANIFEST_PATH, MANIFEST_SHAPES, async (request, reply) => {
    keys.authenticate(request.headers.authorization);
    const nonce = nonceOf(request.query);
    refuseUndeclared(request);
    const answer: ManifestAnswer | undefined = wantsBundle(request.query)
      ? await bundles.answerFor(nonce)
      : await answers.answerFor(nonce);
    if (answer === undefined) throw new HttpError(404, 'NO_RELEASE', 'nothing is published');
    const gzip = answer.length >= GZIP_MIN_BYTES && acceptsGzip(request.headers['accept-encoding']);
    reply.header('cache-control', 'no-store');
    reply.header('vary', 'accept-encoding');
    if (nonce === undefined) {
      // RFC 9110 §8.8.1: another representation, another tag; weak, so that If-None-Match
      // (weak comparison, §13.1.2) still matches either form of the same bytes.
      const tag = entityTagOf(answer.bytes());
      reply.header('etag', gzip ? `W/${tag}` : tag);
      if (noneMatch(request.headers['if-none-match'], tag)) return reply.code(304).send();
    }
    reply.type('application/json; charset=utf-8');
    if (!gzip) return reply.send(answer.bytes());
    reply.header('content-encoding', 'gzip');
    return reply.send(answer.gzip());
  });
}
