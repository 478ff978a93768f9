/**
 * Pulls one artifact into the blob store: resumes a partial file with Range + If-Range
 * (RFC 9110 §14.2, §13.1.5), never accepts a byte past the signed size, and hands the result
 * to the store, which checks the signed SHA-256 before promoting it.
 */
import type { ManifestArtifact } from '#protocol/manifest.js';
import { UpdateError } from '../errors.js';
import { errorForResponse } from './http-errors.js';
import { NO_HEADERS, startGet, type Exchange, type HttpContext } from './http-get.js';
import type { AbortLane } from './linked-abort.js';
import type { LocalStore, PartialBlob } from '../ports.js';

export interface DownloadHooks {
  /** Waits for bandwidth (the shared cap) before `count` more bytes are taken in. */
  readonly throttle?: (count: number, signal: AbortSignal) => Promise<void>;
  /** Bytes of this artifact now present (resumed + received). */
  readonly onHave: (have: number) => void;
  /** Bytes that just came from the network. */
  readonly onNetworkBytes: (count: number) => void;
  /** The download slot's reusable abort link (linked-abort.ts); else one per request. */
  readonly lane?: AbortLane;
}

const CONTENT_RANGE = /^bytes (\d+)-(\d+)\/(\d+|\*)$/;

/** A strong validator for If-Range: a strong ETag, else Last-Modified (RFC 9110 §13.1.5). */
function validatorOf(
  etag: string | undefined,
  lastModified: string | undefined,
): string | undefined {
  if (etag !== undefined && !etag.startsWith('W/')) return etag;
  return lastModified;
}

/** One attempt: bring `partial` up to the signed size, or throw. */
export async function receive(
  ctx: HttpContext,
  artifact: ManifestArtifact,
  url: URL | string,
  partial: PartialBlob,
  signal: AbortSignal,
  hooks: DownloadHooks,
): Promise<void> {
  const what = `artifact ${artifact.name}`;
  const exchange = await startGet(ctx, url, resumeHeaders(partial), signal, what, hooks.lane);
  const { response } = exchange;
  try {
    await acceptStatus(ctx, exchange, artifact, partial, what);
    const validator = validatorOf(response.header('etag'), response.header('last-modified'));
    if (validator !== partial.validator) await partial.setValidator(validator);
    hooks.onHave(partial.offset);
    for await (const chunk of response.body) {
      exchange.watch.bytes(chunk.length);
      if (partial.offset + chunk.length > artifact.size) {
        throw new UpdateError('SIZE_MISMATCH', `${what}: longer than the signed ${artifact.size}`);
      }
      await partial.write(chunk);
      hooks.onNetworkBytes(chunk.length);
      if (hooks.throttle !== undefined) await hooks.throttle(chunk.length, signal);
      hooks.onHave(partial.offset);
    }
    const failure = exchange.finish();
    if (failure !== undefined) throw failure;
    if (partial.offset !== artifact.size) {
      throw new UpdateError(
        'SIZE_MISMATCH',
        `${what}: ended at ${partial.offset} bytes, signed size is ${artifact.size}`,
      );
    }
  } catch (error) {
    response.discard();
    const mapped = exchange.finish(error) ?? error;
    // Bytes past or short of the signed size are refused outright: keep nothing of them.
    if (mapped instanceof UpdateError && mapped.code === 'SIZE_MISMATCH') await partial.reset();
    throw mapped;
  }
}

/** The resume request for `partial`: Range from its end, If-Range its validator; none at 0. */
function resumeHeaders(partial: PartialBlob): Readonly<Record<string, string>> {
  const offset = partial.offset;
  if (offset === 0) return NO_HEADERS;
  const resume: Record<string, string> = { range: `bytes=${offset}-` };
  if (partial.validator !== undefined) resume['if-range'] = partial.validator;
  return resume;
}

/**
 * Checks the answer's status and declared sizes against the signed size and the resume
 * offset (docs/UPDATER.md §3, Resume): 200 starts over, 206 must continue exactly at the
 * offset, 416 drops the partial; anything else is the status's error.
 */
async function acceptStatus(
  ctx: HttpContext,
  exchange: Exchange,
  artifact: ManifestArtifact,
  partial: PartialBlob,
  what: string,
): Promise<void> {
  const { response } = exchange;
  const offset = partial.offset;
  const status = response.status;
  const declared = Number(response.header('content-length') ?? Number.NaN);
  if (status === 200) {
    if (offset > 0) await partial.reset();
    if (Number.isFinite(declared) && declared !== artifact.size) {
      throw new UpdateError(
        'SIZE_MISMATCH',
        `${what}: server declares ${declared} bytes, signed size is ${artifact.size}`,
      );
    }
  } else if (status === 206 && offset > 0) {
    const match = CONTENT_RANGE.exec(response.header('content-range') ?? '');
    const total = match?.[3];
    if (total !== undefined && total !== '*' && Number(total) !== artifact.size) {
      throw new UpdateError('SIZE_MISMATCH', `${what}: server says ${total} bytes in all`);
    }
    if (Number.isFinite(declared) && declared !== artifact.size - offset) {
      throw new UpdateError('SIZE_MISMATCH', `${what}: range of ${declared} bytes declared`);
    }
    if (match === undefined || match === null || Number(match[1]) !== offset) {
      // Not the range we asked for: start over from byte 0 on the next attempt.
      await partial.reset();
      throw new UpdateError('NETWORK', `${what}: unexpected Content-Range`, { transient: true });
    }
  } else if (status === 416 && offset > 0) {
    await partial.reset();
    throw new UpdateError('HTTP_STATUS', `${what}: range refused (416)`, {
      transient: true,
      details: { url: exchange.safeUrl, status },
    });
  } else {
    throw await errorForResponse(response, what, ctx.clock.nowMs(), exchange.safeUrl);
  }
}

/**
 * Downloads an artifact into `store` (one attempt; the caller retries transient failures).
 * A partial resumed from an earlier run is only trusted once the whole file matches: if it
 * does not, it is dropped and the artifact fetched once more from byte 0.
 */
export async function downloadArtifact(
  ctx: HttpContext,
  store: LocalStore,
  artifact: ManifestArtifact,
  url: URL | string,
  signal: AbortSignal,
  hooks: DownloadHooks,
): Promise<void> {
  for (let pass = 0; ; pass++) {
    const partial = await store.openPartial(artifact.sha256, artifact.size);
    const resumed = partial.offset > 0;
    try {
      if (partial.offset < artifact.size) await receive(ctx, artifact, url, partial, signal, hooks);
      hooks.onHave(partial.offset);
      await partial.complete();
      return;
    } catch (error) {
      await partial.close();
      const retryFresh =
        error instanceof UpdateError && error.code === 'HASH_MISMATCH' && resumed && pass === 0;
      if (!retryFresh) throw error;
      hooks.onHave(0);
    }
  }
}
