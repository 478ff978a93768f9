/**
 * POST /api/dev/releases (dev only): {"registry_version", "artifacts": [{"name",
 * "content_base64"}], "expires_in_s"?, "artifact_base_url"?, "notes"?}, or a bundle signed offline:
 * {"bundle": <release envelope>, "artifacts": [...], "expires_in_s"?}. The body limit is raised to
 * DEV_RELEASE_MAX_BYTES for this route only; bigger releases go through the CLI or
 * startServer().publish().
 */
import type { FastifyInstance } from 'fastify';
import { decodeBase64Strict, type ServerErrorCode } from '#protocol';
import { HttpError } from '../../http/http-error.js';
import { bodyObject } from '../../http/json-body.js';
import { declareShapes, refuseUndeclared } from '../../http/route-schema.js';
import type { PublishArtifact, PublishInput, Publisher } from '../publish/publisher.js';

export const DEV_RELEASE_MAX_BYTES = 32 * 1024 * 1024;

const bad = (code: ServerErrorCode, message: string): never => {
  throw new HttpError(400, code, message);
};

/** Turns the JSON body into a PublishInput, refusing anything malformed. */
export function parseDevRelease(body: unknown): PublishInput {
  const o = bodyObject(body);
  const bundled = Object.hasOwn(o, 'bundle');
  // A bundle carries its version and URLs signed (docs/PROTOCOL.md §2.7.8).
  const allowed = bundled
    ? ['bundle', 'artifacts', 'expires_in_s']
    : ['registry_version', 'artifacts', 'expires_in_s', 'artifact_base_url', 'notes'];
  for (const key of Object.keys(o)) {
    if (!allowed.includes(key)) bad('UNKNOWN_FIELD', `unknown field ${JSON.stringify(key)}`);
  }
  const { registry_version, artifacts, expires_in_s, artifact_base_url, notes } = o;
  // Its length and characters are judged with the release (release-builder.ts checkPayload).
  if (notes !== undefined && typeof notes !== 'string') {
    bad('MANIFEST_MALFORMED', 'notes must be a string');
  }
  if (!bundled && typeof registry_version !== 'string') {
    bad('INVALID_VERSION', 'registry_version is required');
  }
  if (!Array.isArray(artifacts)) bad('INVALID_ARTIFACTS', 'artifacts must be a list');
  if (expires_in_s !== undefined && typeof expires_in_s !== 'number') {
    bad('INVALID_EXPIRY', 'expires_in_s must be a number');
  }
  if (artifact_base_url !== undefined && typeof artifact_base_url !== 'string') {
    bad('INVALID_ARTIFACT_BASE_URL', 'artifact_base_url must be a string');
  }
  const list: PublishArtifact[] = (artifacts as unknown[]).map((a, i) => {
    if (typeof a !== 'object' || a === null || Array.isArray(a)) {
      return bad('INVALID_ARTIFACTS', `artifacts[${i}] is not an object`);
    }
    const { name, content_base64 } = a as Record<string, unknown>;
    if (typeof name !== 'string') return bad('UNSAFE_NAME', `artifacts[${i}].name is required`);
    if (typeof content_base64 !== 'string') {
      return bad('INVALID_ARTIFACTS', `artifacts[${i}].content_base64 is required`);
    }
    try {
      return {
        name,
        content: decodeBase64Strict(content_base64, `artifacts[${i}].content_base64`),
      };
    } catch {
      return bad('INVALID_BASE64', `artifacts[${i}].content_base64 is not canonical base64`);
    }
  });
  const expiry = expires_in_s === undefined ? {} : { expires_in_s: expires_in_s as number };
  if (bundled) return { bundle: o.bundle, artifacts: list, ...expiry };
  return {
    registry_version: registry_version as string,
    artifacts: list,
    ...expiry,
    ...(artifact_base_url === undefined ? {} : { artifact_base_url: artifact_base_url as string }),
    ...(notes === undefined ? {} : { notes: notes as string }),
  };
}

/** Which fields go together (a bundle or a version) is left to parseDevRelease. */
const RELEASE_SHAPES = declareShapes({
  body: {
    type: 'object',
    additionalProperties: false,
    properties: {
      bundle: {},
      registry_version: { type: 'string' },
      expires_in_s: { type: 'number' },
      artifact_base_url: { type: 'string' },
      notes: { type: 'string' },
      artifacts: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'content_base64'],
          properties: { name: { type: 'string' }, content_base64: { type: 'string' } },
        },
      },
    },
  },
});

export function registerDevReleases(scope: FastifyInstance, publisher: Publisher): void {
  const options = { bodyLimit: DEV_RELEASE_MAX_BYTES, ...RELEASE_SHAPES };
  scope.post('/api/dev/releases', options, async (request) => {
    const input = parseDevRelease(request.body);
    refuseUndeclared(request);
    return publisher.publish(input);
  });
}
