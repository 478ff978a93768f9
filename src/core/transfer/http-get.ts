/**
 * One GET with the rules of where the machine key may go: the bearer header is sent only to
 * the base URL's origin, and redirects are followed here (never by the fetcher) so a redirect
 * to another host never carries it. Stall detection wraps the whole exchange.
 */
import type { Endpoint } from './endpoint.js';
import { UpdateError } from '../errors.js';
import type { Limits } from '../limits.js';
import { linkedAbort, type AbortLane } from './linked-abort.js';
import type { Clock, Fetcher, FetchInit, FetchResponse, Timers } from '../ports.js';
import { safeUrl } from './safe-url.js';
import { StallWatch } from './stall-watch.js';

export interface HttpContext {
  readonly fetcher: Fetcher;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly limits: Limits;
  /** The base URL; only its origin may receive the machine key. */
  readonly endpoint: Endpoint;
  readonly userAgent: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * `extra` of a GET that adds no header (an artifact from byte 0): such a GET reuses one frozen
 * headers object per context and origin side instead of building one per request, and a
 * fetcher may remember what it derived from that object (pipeline-pool.ts `requestText`)
 * (docs/UPDATER.md §8, "Many small artifacts").
 */
export const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** The frozen headers of a GET with NO_HEADERS, per context: [off the origin, on it]. */
const plainHeaders = new WeakMap<HttpContext, (Readonly<Record<string, string>> | undefined)[]>();

/** The headers of a GET to `current`; the machine key only on the base URL's origin. */
function headersFor(
  ctx: HttpContext,
  extra: Readonly<Record<string, string>>,
  current: URL | string,
): Readonly<Record<string, string>> {
  const keyed = onOrigin(current, ctx.endpoint.base.origin);
  let cached = extra === NO_HEADERS ? plainHeaders.get(ctx) : undefined;
  const hit = cached?.[keyed ? 1 : 0];
  if (hit !== undefined) return hit;
  const headers: Record<string, string> = {
    'accept-encoding': 'identity',
    'user-agent': ctx.userAgent,
    ...extra,
  };
  if (keyed) headers['authorization'] = `Bearer ${ctx.endpoint.machineKey}`;
  if (extra !== NO_HEADERS) return headers;
  if (cached === undefined) {
    cached = [undefined, undefined];
    plainHeaders.set(ctx, cached);
  }
  cached[keyed ? 1 : 0] = Object.freeze(headers);
  return headers;
}

/** What one exchange hands back: the final response and the stall watch to feed with bytes. */
export interface Exchange {
  readonly response: FetchResponse;
  readonly url: URL | string;
  /** `url` as errors may name it (safe-url.ts: no query, no user info, no machine key). */
  readonly safeUrl: string;
  readonly watch: StallWatch;
  /** Ends the exchange; maps an error thrown while reading to STALLED/ABORTED when due. */
  finish(error?: unknown): UpdateError | undefined;
}

/**
 * True when `url` is on `origin` (the base URL's), so the machine key may go with it. A string
 * is an href as the URL parser serialises it (artifact-url.ts); one in any other form (user
 * info, an upper-case host) is taken as another origin: the key stays home.
 */
function onOrigin(url: URL | string, origin: string): boolean {
  if (typeof url !== 'string') return url.origin === origin;
  return url.startsWith(origin) && url.charCodeAt(origin.length) === 0x2f;
}

/**
 * Starts a GET, following at most limits.maxRedirects redirects. With a `lane` (a download
 * slot's reusable link over `parent`), the request runs under its link instead of a new one.
 * `acceptGzip` lets the answer come gzip-coded (ports.ts FetchInit; the manifest only).
 */
export async function startGet(
  ctx: HttpContext,
  url: URL | string,
  extra: Readonly<Record<string, string>>,
  parent: AbortSignal,
  what: string,
  lane?: AbortLane,
  acceptGzip = false,
): Promise<Exchange> {
  // Let go of `parent` in finish(): a link per request must not outlive it (linked-abort.ts).
  // A lane's link is the lane's to let go of.
  const link = lane?.take() ?? linkedAbort(parent);
  const signal = link.signal;
  let stalled: string | undefined;
  const watch = stallWatch(ctx, (reason) => {
    stalled = reason;
    link.abort();
  });
  let current: URL | string = url;
  const where = (u: URL | string): string => safeUrl(u, [ctx.endpoint.machineKey]);
  const finish = (error?: unknown): UpdateError | undefined => {
    watch.stop();
    if (lane === undefined) link.dispose();
    if (stalled !== undefined) {
      return new UpdateError('STALLED', `${what}: ${stalled}`, {
        cause: error,
        transient: true,
        details: { url: where(current) },
      });
    }
    if (parent.aborted) return new UpdateError('ABORTED', `${what}: aborted`, { cause: error });
    if (error === undefined) return undefined;
    if (error instanceof UpdateError) return error;
    const message = error instanceof Error ? error.message : 'request failed';
    return new UpdateError('NETWORK', `${what}: ${message}`, {
      cause: error,
      transient: true,
      details: { url: where(current) },
    });
  };
  try {
    for (let hop = 0; ; hop++) {
      const headers = headersFor(ctx, extra, current);
      const init: FetchInit = acceptGzip ? { headers, signal, acceptGzip } : { headers, signal };
      const href = typeof current === 'string' ? current : current.href;
      const response = await ctx.fetcher.get(href, init);
      const location = response.header('location');
      if (!REDIRECTS.has(response.status) || location === undefined) {
        return answer(response, current, watch, finish, where);
      }
      response.discard();
      current = redirectTarget(ctx, response, location, current, hop, what, where);
    }
  } catch (error) {
    throw finish(error) ?? error;
  }
}

/** The stall watch of one exchange, on the context's limits. */
function stallWatch(ctx: HttpContext, onStall: (reason: string) => void): StallWatch {
  return new StallWatch({
    clock: ctx.clock,
    timers: ctx.timers,
    stallTimeoutMs: ctx.limits.stallTimeoutMs,
    minBytesPerS: ctx.limits.minBytesPerS,
    throughputWindowMs: ctx.limits.throughputWindowMs,
    onStall,
  });
}

/** The exchange handed back for the final answer from `answered`. */
function answer(
  response: FetchResponse,
  answered: URL | string,
  watch: StallWatch,
  finish: (error?: unknown) => UpdateError | undefined,
  where: (u: URL | string) => string,
): Exchange {
  let named: string | undefined;
  return {
    response,
    url: answered,
    // Only an error names the URL: parsed and redacted then, not for every response.
    get safeUrl() {
      named ??= where(answered);
      return named;
    },
    watch,
    finish,
  };
}

/** Where the redirect from `current` leads; refused past limits.maxRedirects or off http(s). */
function redirectTarget(
  ctx: HttpContext,
  response: FetchResponse,
  location: string,
  current: URL | string,
  hop: number,
  what: string,
  where: (u: URL | string) => string,
): URL {
  const redirect = { url: where(current), status: response.status };
  if (hop >= ctx.limits.maxRedirects) {
    throw new UpdateError('HTTP_STATUS', `${what}: more than ${hop} redirects`, {
      details: redirect,
    });
  }
  const next = new URL(location, current);
  if (next.protocol !== 'http:' && next.protocol !== 'https:') {
    throw new UpdateError('HTTP_STATUS', `${what}: redirect to ${next.protocol} refused`, {
      details: redirect,
    });
  }
  return next;
}
