/**
 * The TUF workflow's fetcher (src/core/tuf `TufFetcher`) over the run's HTTP context: the same
 * GET as the manifest's (the machine key as bearer on the base URL's origin only, redirects
 * followed here, the stall watch), each body read up to the byte cap the workflow gives. The
 * timestamp request carries the run's nonce (`?nonce=`, docs/PROTOCOL.md §TUF repository,
 * "Client"), and its bytes are kept so the step can check the nonce the answer signed.
 */
import { TufError } from '#protocol/tuf/index.js';
import { UpdateError } from '../errors.js';
import { errorForResponse, startGet, type HttpContext } from '../transfer/index.js';
import { readCapped } from './fetch-manifest.js';

/** A TufFetcher that also hands back the last timestamp body it read. */
export interface RunTufFetcher {
  get(url: string, maxBytes: number): Promise<Uint8Array>;
  /** The bytes of the last `timestamp.json` fetched in this run, if any. */
  readonly fetchedTimestamp: Uint8Array | undefined;
}

const TIMESTAMP = /\/timestamp\.json$/;

/**
 * Fetches over `ctx`. 404, and a 403 that is not about the subscription, are TufError
 * NOT_FOUND (the end of the root chain, TUF spec §5.3.3; a static tree on an object store
 * answers 403 for a missing name); a body over the cap is TufError TOO_LARGE; any other answer
 * is the UpdateError today's manifest GET gives for it (401 UNAUTHORIZED, 5xx HTTP_STATUS...).
 */
export function runTufFetcher(
  ctx: HttpContext,
  signal: AbortSignal,
  nonce: string | undefined,
): RunTufFetcher {
  let fetchedTimestamp: Uint8Array | undefined;
  return {
    get fetchedTimestamp() {
      return fetchedTimestamp;
    },
    async get(href: string, maxBytes: number): Promise<Uint8Array> {
      const url = new URL(href);
      const isTimestamp = TIMESTAMP.test(url.pathname);
      if (isTimestamp && nonce !== undefined) url.searchParams.set('nonce', nonce);
      const bytes = await getCapped(ctx, signal, url, maxBytes);
      if (isTimestamp) fetchedTimestamp = bytes;
      return bytes;
    },
  };
}

async function getCapped(
  ctx: HttpContext,
  signal: AbortSignal,
  url: URL,
  maxBytes: number,
): Promise<Uint8Array> {
  const headers = { accept: 'application/json' };
  const exchange = await startGet(ctx, url, headers, signal, 'tuf metadata');
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
