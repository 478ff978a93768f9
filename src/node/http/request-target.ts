/**
 * Where a GET goes, as node:http request options, without a `new URL` and `urlToHttpOptions`
 * per request (docs/UPDATER.md §8, "Many small artifacts"): the origin of a URL is parsed once
 * and kept, and the path is taken as written when it is already in the form the URL parser
 * would give it. Anything else (a path to normalise, user info, an unknown origin form) goes
 * through the parser, so both ways send the same request line.
 */
import { DOT_SEGMENT } from '#core/transfer/index.js';
import { UpdateError } from '#core/errors.js';

export interface RequestTarget {
  readonly secure: boolean;
  readonly hostname: string;
  readonly port: string;
  /** Path and query, as sent on the request line. */
  readonly path: string;
  /** 'user:password' from the URL's user info (node sends it as Basic auth), if any. */
  readonly auth?: string;
}

interface Origin {
  readonly secure: boolean;
  readonly hostname: string;
  readonly port: string;
}

/**
 * A path and query the WHATWG parser leaves as they are: unreserved and sub-delimiter
 * characters, '%', ':', '@', '/' and '?' only (no quote, which it encodes in a special scheme's
 * query, no backslash, which it reads as '/').
 */
const SERIALISED_PATH = /^\/[A-Za-z0-9\-._~!$&()*+,;=:@/%?]*$/;
const SLASH = 0x2f;

function originOf(url: URL): Origin | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return { secure: url.protocol === 'https:', hostname, port: url.port };
}

function parsed(url: string): RequestTarget {
  // A URL that does not parse throws node's ERR_INVALID_URL, which the fetcher maps.
  const target = new URL(url);
  const origin = originOf(target);
  if (origin === undefined) {
    throw new UpdateError('NETWORK', `unsupported protocol ${target.protocol}`);
  }
  const path = `${target.pathname}${target.search}`;
  if (target.username === '' && target.password === '') return { ...origin, path };
  // As node's urlToHttpOptions gives it.
  const auth = `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`;
  return { ...origin, path, auth };
}

/** Parses request targets, remembering each origin it has seen in serialised form. */
export class RequestTargets {
  /** By 'scheme://host[:port]' as serialised; undefined where the prefix is not that form. */
  private readonly origins = new Map<string, Origin | undefined>();
  /** The serialised origin last asked for. */
  private last: { readonly prefix: string; readonly origin: Origin } | undefined;

  /** The target of `url`; throws for a URL that is not http(s) (NETWORK) or does not parse. */
  of(url: string): RequestTarget {
    let slash: number;
    let origin: Origin | undefined;
    const last = this.last;
    if (
      last !== undefined &&
      url.startsWith(last.prefix) &&
      url.charCodeAt(last.prefix.length) === SLASH
    ) {
      // The origin of the request before (a pull asks one origin thousands of times).
      slash = last.prefix.length;
      origin = last.origin;
    } else {
      const start = url.startsWith('https://') ? 8 : url.startsWith('http://') ? 7 : -1;
      slash = start < 0 ? -1 : url.indexOf('/', start);
      if (slash < 0) return parsed(url);
      const prefix = url.slice(0, slash);
      origin = this.origins.get(prefix);
      if (origin === undefined && !this.origins.has(prefix)) origin = this.learn(prefix);
      if (origin === undefined) return parsed(url);
      this.last = { prefix, origin };
    }
    const hash = url.indexOf('#', slash);
    const path = hash < 0 ? url.slice(slash) : url.slice(slash, hash);
    if (!SERIALISED_PATH.test(path) || DOT_SEGMENT.test(path)) return parsed(url);
    return { ...origin, path };
  }

  private learn(prefix: string): Origin | undefined {
    let origin: Origin | undefined;
    try {
      const url = new URL(`${prefix}/`);
      // Only a prefix the parser serialises unchanged (lower-case host, no default port,
      // no user info) may skip it.
      if (url.href === `${prefix}/` && url.username === '' && url.password === '') {
        origin = originOf(url);
      }
    } catch {
      origin = undefined;
    }
    // Bounded: a fetcher talks to a handful of origins (the base URL and its mirrors).
    if (this.origins.size < 64) this.origins.set(prefix, origin);
    return origin;
  }
}
