/**
 * GET /api/updates/manifest with the bearer machine key (docs/INTERFACE.md §4.3), reading at most
 * maxManifestBytes: a longer declared or actual body is MANIFEST_TOO_LARGE at once, so an
 * endless manifest costs bounded memory (TUF "endless data"). With an answer cache the request
 * is conditional (If-None-Match) and a 304 answers the kept bytes (docs/PROTOCOL.md §2.7.6).
 * The answer may come gzip-coded (§2.7.6, Content coding): the fetcher inflates it as it
 * streams and the cap applies to the inflated bytes, so a gzip bomb is MANIFEST_TOO_LARGE with
 * bounded memory; what is verified and kept is always the inflated bytes.
 */
import type { AnswerCache, CachedAnswer } from './answer-cache.js';
import { checkContentCoding } from '../transfer/index.js';
import { UpdateError } from '../errors.js';
import { errorForResponse } from '../transfer/index.js';
import { startGet, type Exchange, type HttpContext } from '../transfer/index.js';

export const MANIFEST_PATH = 'api/updates/manifest';

/** What a caller may hand fetchManifest to overlap its own work with the exchange. */
export interface ManifestOverlap {
  /** Run by a timer once the GET has left, while its answer is on its way. */
  readonly whileWaiting?: () => void;
  /**
   * Takes the keeping of a 200 answer in the cache, which then runs beside the caller's
   * verification instead of before the bytes are handed back; the caller waits for it
   * before it is done (it never rejects). Without it the keeping is waited for here.
   */
  readonly keeping?: (kept: Promise<void>) => void;
}

/**
 * Fetches the raw answer bytes. Nothing here trusts them: verify.ts does, the same way for
 * bytes that came in a 200 and for kept bytes a 304 confirmed. `nonce` (base64url) is sent as
 * `?nonce=` (docs/PROTOCOL.md §2.7.6); a request with a nonce is never conditional, since its
 * answer is signed for that request alone. `overlap`: see ManifestOverlap.
 */
export async function fetchManifest(
  ctx: HttpContext,
  signal: AbortSignal,
  cache?: AnswerCache,
  nonce?: string,
  overlap: ManifestOverlap = {},
): Promise<Uint8Array> {
  const max = ctx.limits.maxManifestBytes;
  const url = new URL(MANIFEST_PATH, ctx.endpoint.base);
  if (nonce !== undefined) url.searchParams.set('nonce', nonce);
  const usable = nonce === undefined ? cache : undefined;
  // A cache that cannot be read is no cache: the full answer is asked for.
  const kept: CachedAnswer | undefined = await usable?.load(url.href).catch(() => undefined);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (kept !== undefined) headers['if-none-match'] = kept.etag;
  const asked = startGet(ctx, url, headers, signal, 'manifest', undefined, true);
  // startGet hands the request to the fetcher before its first await; a timer runs after the
  // request is written, so this work never delays it.
  if (overlap.whileWaiting !== undefined) ctx.timers.setTimeout(overlap.whileWaiting, 0);
  const exchange = await asked;
  const { response } = exchange;
  try {
    if (response.status === 304 && kept !== undefined) {
      response.discard();
      const failure = exchange.finish();
      if (failure !== undefined) throw failure;
      return kept.bytes;
    }
    if (response.status !== 200) {
      throw await errorForResponse(response, 'manifest', ctx.clock.nowMs(), exchange.safeUrl);
    }
    checkContentCoding(response, true, 'manifest', exchange.safeUrl);
    const bytes = await readCapped(exchange, max, 'manifest');
    // A gzip answer's tag is its own (nginx and our server make it weak, W/"…"); sent back
    // verbatim, it matches under the weak comparison If-None-Match uses (RFC 9110 §13.1.2).
    const etag = response.header('etag');
    // Kept whatever verification will say: on a 304 it is verified again, like this answer.
    if (usable !== undefined && etag !== undefined) {
      const kept = usable.save(url.href, { etag, bytes }).catch(() => undefined);
      if (overlap.keeping === undefined) await kept;
      else overlap.keeping(kept);
    }
    return bytes;
  } catch (error) {
    response.discard();
    throw exchange.finish(error) ?? error;
  }
}

/**
 * The body of a 200 answer, at most `max` bytes: a larger declared or actual body is
 * MANIFEST_TOO_LARGE at once (bounded memory, TUF "endless data"). An inflated body is capped
 * on its inflated bytes, and its declared (coded) length is not compared; the stall watch counts
 * wire bytes. Finishes the exchange; the caller discards the response on a throw.
 */
export async function readCapped(
  exchange: Exchange,
  max: number,
  what: string,
): Promise<Uint8Array> {
  const { response } = exchange;
  const wire = response.wireBytes?.bind(response);
  const declared = Number(response.header('content-length') ?? Number.NaN);
  if (response.inflated !== true && Number.isFinite(declared) && declared > max) {
    throw new UpdateError('MANIFEST_TOO_LARGE', `${what} declares ${declared} > ${max} bytes`);
  }
  const parts: Uint8Array[] = [];
  let total = 0;
  let counted = 0;
  for await (const chunk of response.body) {
    total += chunk.length;
    if (total > max) throw new UpdateError('MANIFEST_TOO_LARGE', `${what} exceeds ${max} bytes`);
    const now = wire === undefined ? total : wire();
    exchange.watch.bytes(now - counted);
    counted = now;
    parts.push(chunk);
  }
  const failure = exchange.finish();
  if (failure !== undefined) throw failure;
  return Buffer.concat(parts, total);
}
