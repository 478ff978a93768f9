/**
 * The Fetcher port (src/core/ports.ts) over undici's `Dispatcher.dispatch` (docs/UPDATER.md §5,
 * Pipelined GETs): one GET, no redirect followed (a dispatcher follows none), no status an
 * error, no decompression (a dispatcher inflates nothing; a gzip answer to a request sent with
 * `acceptGzip` goes through gzip-body.ts), the body streamed as it arrives. Everything else a
 * download needs (size cap, redirect policy, stall and drip-feed watch, retries, error codes)
 * lives in the core (src/core/transfer/http-get.ts); this adapter adds the connect timeout and
 * the error mapping (network-error.ts).
 *
 * Why not undici's fetch() or request(): they wrap every answer in a web stream or a Readable,
 * which cost a small artifact more than its request (undici-exchange.ts, §8 "One HTTP stack").
 *
 * Two agents: whole-file GETs (no Range, no gzip) go to one whose connections carry
 * `pipelining` requests each (HTTP/1.1 pipelining, §5 "Pipelined GETs"), so the pull's extra
 * download slots (src/core/transfer/pull.ts) queue on `connections` sockets; every other
 * request (manifest, ranges, chunk indexes) goes to one without, never behind a queue of bodies.
 */
import type * as Undici from 'undici';
import type { Fetcher, FetchInit, FetchResponse } from '#core/ports.js';
import { isGzipCoding } from '#core/transfer/index.js';
import { gunzipBody } from './gzip-body.js';
import { networkError } from './network-error.js';
import { exchange } from './undici-exchange.js';
import { loadUndici, type UndiciAgent } from './undici-load.js';

export interface UndiciFetcherOptions {
  /** Longest wait for a connection: DNS lookup, TCP connect and TLS handshake together. */
  readonly connectTimeoutMs: number;
  /** Sockets per origin for whole-file GETs (limits.parallel); default 1. */
  readonly connections?: number;
  /** Requests a socket of whole-file GETs carries at once; 1 or unset: no pipelining. */
  readonly pipelining?: number;
  /**
   * Trust anchors for `https:` (PEM), replacing node's store for this fetcher (tests, a
   * registry behind a private CA); unset, node's store and NODE_EXTRA_CA_CERTS apply.
   */
  readonly ca?: string | readonly string[];
  /** undici, when the caller has it loaded already (tests); default: loadUndici(). */
  readonly undici?: UndiciAgent;
}

/** A Fetcher that also drops its connections (after a run's last request). */
export interface UndiciFetcher extends Fetcher {
  close(): Promise<void>;
}

interface Agents {
  readonly plain: Undici.Agent;
  readonly piped: Undici.Agent;
}

function makeAgents(undici: UndiciAgent, options: UndiciFetcherOptions): Agents {
  const ca = options.ca;
  const connect = {
    timeout: options.connectTimeoutMs,
    noDelay: true,
    ...(ca === undefined ? {} : { ca: typeof ca === 'string' ? ca : [...ca] }),
  };
  // No head or body timeout of undici's: the core's stall watch bounds every exchange (§5),
  // and a timer per request is a measurable share of a pull of small artifacts (§8).
  const common = { connect, headersTimeout: 0, bodyTimeout: 0 };
  const connections = Math.max(1, options.connections ?? 1);
  // A cap, not undici's unbounded default: uncapped, a second request sent while the first
  // socket still connects opens another. Twice the pull's slots: each slot holds one answer
  // at a time, and the manifest or a key fetch may come beside them.
  const plain = new undici.Agent({ ...common, connections: 2 * connections });
  const depth = options.pipelining ?? 1;
  const piped = depth > 1 ? new undici.Agent({ ...common, connections, pipelining: depth }) : plain;
  return { plain, piped };
}

/** The origin and path of an http(s) URL, as request() takes them; throws for anything else. */
function targetOf(url: string): { origin: string; path: string; authorization?: string } {
  // The URL parser normalises the path (dot segments, escapes) before it goes on the wire.
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw Object.assign(new Error(`unsupported protocol ${parsed.protocol}`), {
      code: 'ERR_UNSUPPORTED_PROTOCOL',
    });
  }
  const path = `${parsed.pathname}${parsed.search}`;
  if (parsed.username === '' && parsed.password === '') return { origin: parsed.origin, path };
  // User info is sent as Basic credentials, as node:http would send it.
  const user = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
  return {
    origin: parsed.origin,
    path,
    authorization: `Basic ${Buffer.from(user).toString('base64')}`,
  };
}

/** One GET through `agents`. */
async function send(agents: Agents, url: string, init: FetchInit): Promise<FetchResponse> {
  const { origin, path, authorization } = targetOf(url);
  const headers: Record<string, string> = { ...init.headers };
  if (init.acceptGzip === true) headers['accept-encoding'] = 'gzip';
  if (authorization !== undefined && headers['authorization'] === undefined) {
    headers['authorization'] = authorization;
  }
  const whole = init.acceptGzip !== true && init.headers['range'] === undefined;
  const head = await exchange(
    whole ? agents.piped : agents.plain,
    {
      origin,
      path,
      method: 'GET',
      headers,
      // undici holds every request behind a GET's head unless told it is no long wait: without
      // this a pipelining agent never has two GETs on the wire (§5, "Pipelined GETs").
      blocking: !whole,
    },
    url,
    init.signal,
  );
  const { status, header, body, discard } = head;
  if (init.acceptGzip === true && isGzipCoding(header('content-encoding'))) {
    let wire = 0;
    return {
      status,
      header,
      body: gunzipBody(body, url, (count) => (wire += count)),
      inflated: true,
      wireBytes: () => wire,
      discard,
    };
  }
  return { status, header, body, discard };
}

/** Builds a Fetcher over undici; undici itself is loaded at the first request. */
export function createUndiciFetcher(options: UndiciFetcherOptions): UndiciFetcher {
  let agents: Agents | undefined =
    options.undici === undefined ? undefined : makeAgents(options.undici, options);
  let loading: Promise<Agents> | undefined;
  const ready = (): Promise<Agents> =>
    (loading ??= loadUndici().then((undici) => (agents = makeAgents(undici, options))));
  const pipelining = (options.pipelining ?? 1) > 1;
  return {
    async get(url, init) {
      try {
        return await send(agents ?? (await ready()), url, init);
      } catch (error) {
        throw networkError(error, url, init.signal);
      }
    },
    pipelines: (url) => pipelining && /^https?:\/\/[^/@]*\//i.test(url),
    async close() {
      const held = agents;
      if (held === undefined) return;
      await Promise.all([...new Set([held.plain, held.piped])].map((agent) => agent.destroy()));
    },
  };
}
