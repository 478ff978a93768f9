/**
 * GET /api/updates/manifest with the bearer machine key (docs/INTERFACE.md §4.3), reading at most
 * maxManifestBytes: a longer declared or actual body is MANIFEST_TOO_LARGE at once, so an
 * endless manifest costs bounded memory (TUF "endless data").
 */
import { UpdateError } from './errors.js';
import { errorForResponse } from './http-errors.js';
import { startGet, type HttpContext } from './http-get.js';

export const MANIFEST_PATH = 'api/updates/manifest';

/**
 * Fetches the raw answer bytes. Nothing here trusts them: verify.ts does. `nonce` (base64url)
 * is sent as `?nonce=` (docs/PROTOCOL.md §2.7.6).
 */
export async function fetchManifest(
  ctx: HttpContext,
  signal: AbortSignal,
  nonce?: string,
): Promise<Uint8Array> {
  const max = ctx.limits.maxManifestBytes;
  const url = new URL(MANIFEST_PATH, ctx.endpoint.base);
  if (nonce !== undefined) url.searchParams.set('nonce', nonce);
  const exchange = await startGet(ctx, url, { accept: 'application/json' }, signal, 'manifest');
  const { response } = exchange;
  try {
    if (response.status !== 200) {
      throw await errorForResponse(response, 'manifest', ctx.clock.nowMs());
    }
    const declared = Number(response.header('content-length') ?? Number.NaN);
    if (Number.isFinite(declared) && declared > max) {
      throw new UpdateError('MANIFEST_TOO_LARGE', `manifest declares ${declared} > ${max} bytes`);
    }
    const parts: Uint8Array[] = [];
    let total = 0;
    for await (const chunk of response.body) {
      total += chunk.length;
      if (total > max) {
        throw new UpdateError('MANIFEST_TOO_LARGE', `manifest exceeds ${max} bytes`);
      }
      exchange.watch.bytes(chunk.length);
      parts.push(chunk);
    }
    const failure = exchange.finish();
    if (failure !== undefined) throw failure;
    return Buffer.concat(parts, total);
  } catch (error) {
    response.discard();
    throw exchange.finish(error) ?? error;
  }
}
