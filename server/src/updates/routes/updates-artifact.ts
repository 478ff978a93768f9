/**
 * GET|HEAD /api/updates/artifacts/:sha256: a content-addressed blob, streamed from disk
 * (memory stays flat whatever its size), with single and multipart ranges (RFC 9110 §14), If-Range,
 * If-None-Match and a strong ETag. Same bearer and subscription rule as the manifest.
 */
import { close, createReadStream, fstat, open } from 'node:fs';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SHA256_HEX } from '#protocol';
import { HttpError } from '../../http/http-error.js';
import { declareShapes, refuseUndeclared } from '../../http/route-schema.js';
import { decideRange, ifNoneMatchHits, ifRangeAllows } from '../byte-range.js';
import type { MachineKeys } from '../machine-keys.js';
import type { BlobStore } from '../../store/blob-store.js';

export const ARTIFACT_ROUTE = '/api/updates/artifacts/:sha256';

const openAsync = promisify(open);
const fstatAsync = promisify(fstat);
const closeFd = (fd: number): void => close(fd, () => undefined);

export function registerUpdatesArtifact(
  scope: FastifyInstance,
  keys: MachineKeys,
  blobs: BlobStore,
): void {
  scope.route({
    method: ['GET', 'HEAD'],
    url: ARTIFACT_ROUTE,
    exposeHeadRoute: false,
    ...declareShapes({
      params: {
        type: 'object',
        properties: { sha256: { type: 'string', pattern: SHA256_HEX.source } },
      },
    }),
    handler: (request, reply) => serveArtifact(request, reply, keys, blobs),
  });
}

async function serveArtifact(
  request: FastifyRequest,
  reply: FastifyReply,
  keys: MachineKeys,
  blobs: BlobStore,
): Promise<FastifyReply> {
  keys.authenticate(request.headers.authorization);
  const sha256 = (request.params as { sha256: string }).sha256;
  if (!SHA256_HEX.test(sha256)) {
    throw new HttpError(400, 'BAD_DIGEST', 'the artifact id is 64 lowercase hex characters');
  }
  refuseUndeclared(request);
  // Open first, then fstat the same descriptor: a concurrent reset cannot swap the file.
  // Plain descriptors (not FileHandle objects): this is the per-request hot path.
  let fd: number;
  try {
    fd = await openAsync(blobs.pathOf(sha256), 'r');
  } catch {
    throw new HttpError(404, 'ARTIFACT_NOT_FOUND', 'no artifact with this digest');
  }
  let size: number;
  try {
    size = (await fstatAsync(fd)).size;
  } catch (error) {
    closeFd(fd);
    throw error;
  }
  const etag = `"${sha256}"`;
  void reply
    .header('etag', etag)
    .header('accept-ranges', 'bytes')
    // Content-addressed, so immutable; private because the route is authenticated.
    .header('cache-control', 'private, max-age=31536000, immutable')
    .type('application/octet-stream');

  if (ifNoneMatchHits(request.headers['if-none-match'], etag)) {
    closeFd(fd);
    return reply.code(304).send();
  }

  const ranged = ifRangeAllows(ifRangeOf(request.headers['if-range']), etag);
  const decision = ranged
    ? decideRange(firstHeader(request.headers.range), size)
    : { kind: 'full' as const };
  if (decision.kind === 'unsatisfiable') {
    closeFd(fd);
    throw new HttpError(416, 'RANGE_NOT_SATISFIABLE', 'the range is outside the artifact', {
      headers: { 'content-range': `bytes */${size}` },
    });
  }
  if (decision.kind === 'multipart')
    return sendMultipart(request, reply, fd, size, decision.ranges);
  const start = decision.kind === 'partial' ? decision.start : 0;
  const end = decision.kind === 'partial' ? decision.end : size - 1;
  if (decision.kind === 'partial') {
    void reply.code(206).header('content-range', `bytes ${start}-${end}/${size}`);
  }
  void reply.header('content-length', String(end - start + 1));
  if (request.method === 'HEAD' || end < start) {
    closeFd(fd);
    return reply.send();
  }
  return reply.send(createReadStream('', { fd, start, end, highWaterMark: 256 * 1024 }));
}

/** The boundary of multipart answers: never a byte sequence of the part headers (§14.6). */
const BOUNDARY = 'verified-updater-byteranges-3d6f9c1e';

/**
 * 206 multipart/byteranges (RFC 9110 §14.6): each part its Content-Type and Content-Range,
 * then the bytes, read from the descriptor one part at a time (memory stays flat).
 */
function sendMultipart(
  request: FastifyRequest,
  reply: FastifyReply,
  fd: number,
  size: number,
  ranges: readonly (readonly [number, number])[],
): FastifyReply {
  const heads = ranges.map(
    ([start, end]) =>
      `\r\n--${BOUNDARY}\r\nContent-Type: application/octet-stream\r\n` +
      `Content-Range: bytes ${start}-${end}/${size}\r\n\r\n`,
  );
  const tail = `\r\n--${BOUNDARY}--\r\n`;
  let length = Buffer.byteLength(tail);
  ranges.forEach(([start, end], i) => {
    length += Buffer.byteLength(heads[i] as string) + end - start + 1;
  });
  void reply
    .code(206)
    .type(`multipart/byteranges; boundary=${BOUNDARY}`)
    .header('content-length', String(length));
  if (request.method === 'HEAD') {
    closeFd(fd);
    return reply.send();
  }
  async function* parts(): AsyncGenerator<Buffer> {
    try {
      for (const [i, [start, end]] of ranges.entries()) {
        yield Buffer.from(heads[i] as string);
        const stream = createReadStream('', { fd, start, end, autoClose: false });
        for await (const chunk of stream) yield chunk as Buffer;
      }
      yield Buffer.from(tail);
    } finally {
      closeFd(fd);
    }
  }
  return reply.send(Readable.from(parts()));
}

// Duplicated headers arrive as arrays; a duplicated Range or If-Range is ambiguous, so ignored.
function firstHeader(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

// A duplicated If-Range cannot be matched, so it disables the range (RFC 9110 §13.1.5).
function ifRangeOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? '' : value;
}
