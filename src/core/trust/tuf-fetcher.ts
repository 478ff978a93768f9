/**
 * The TUF workflow's fetcher (src/core/tuf `TufFetcher`) over the run's HTTP context: the same
 * GET as the manifest's (the machine key as bearer on the base URL's origin only, redirects
 * followed here, the stall watch), each body read up to the byte cap the workflow gives. The
 * metadata may come gzip-coded (docs/PROTOCOL.md §2.7.6, Content coding): the one-request
 * bundle is megabytes of base64 at 10,000 targets; the cap applies to the inflated bytes.
 */
import { TufError } from '#protocol/tuf/index.js';
import { UpdateError } from '../errors.js';
import {
  checkContentCoding,
  errorForResponse,
  startGet,
  type HttpContext,
} from '../transfer/index.js';
import type { TufFetcher } from '../tuf/index.js';
import { readCapped } from './fetch-manifest.js';

/**
 * Fetches over `ctx`. 404, and a 403 that is not about the subscription, are TufError
 * NOT_FOUND (the end of the root chain, TUF spec §5.3.3; a static tree on an object store
 * answers 403 for a missing name); a body over the cap is TufError TOO_LARGE; any other answer
 * is the UpdateError today's manifest GET gives for it (401 UNAUTHORIZED, 5xx HTTP_STATUS...).
 * The nonce, when the run has one, is already in the timestamp's URL (the workflow puts it
 * there and checks it in the signed answer).
 */
export function runTufFetcher(ctx: HttpContext, signal: AbortSignal): TufFetcher {
  return {
    get: (href: string, maxBytes: number) => getCapped(ctx, signal, new URL(href), maxBytes),
  };
}

async function getCapped(
  ctx: HttpContext,
  signal: AbortSignal,
  url: URL,
  maxBytes: number,
): Promise<Uint8Array> {
  const headers = { accept: 'application/json' };
  const exchange = await startGet(ctx, url, headers, signal, 'tuf metadata', undefined, true);
  const { response } = exchange;
  try {
    if (response.status === 404 || response.status === 403) {
      const error = await errorForResponse(response, 'tuf metadata', ctx.clock.nowMs());
      if (error.code === 'SUBSCRIPTION_INACTIVE') throw error;
      throw new TufError('NOT_FOUND', `HTTP ${response.status}`, {
        url: exchange.safeUrl,
        status: response.status,
      });
    }
    if (response.status !== 200) {
      throw await errorForResponse(response, 'tuf metadata', ctx.clock.nowMs(), exchange.safeUrl);
    }
    checkContentCoding(response, true, 'tuf metadata', exchange.safeUrl);
    return await readCapped(exchange, maxBytes, 'tuf metadata').catch((error: unknown) => {
      if (error instanceof UpdateError && error.code === 'MANIFEST_TOO_LARGE') {
        throw new TufError('TOO_LARGE', error.message, {
          url: exchange.safeUrl,
          max_bytes: maxBytes,
        });
      }
      throw error;
    });
  } catch (error) {
    response.discard();
    // The workflow's own refusals (NOT_FOUND, TOO_LARGE) stay what they are, unless the
    // exchange itself was cut (stall, abort).
    const failure = exchange.finish(error instanceof TufError ? undefined : error);
    throw failure ?? error;
  }
}
