/**
 * The Fetcher port straight over `node:http` / `node:https` and keep-alive agents of its own
 * (as node's global ones, without their socket timeout): one GET, no redirect followed, no status an error, no
 * decompression (but a gzip answer to a request sent with `acceptGzip`: gzip-body.ts), the body
 * streamed as it arrives. Everything else a download needs (size cap,
 * redirect policy, stall and drip-feed watch, retries, error codes) lives in the core
 * (src/core/transfer/http-get.ts), so this adapter only adds the connect timeout and error mapping.
 *
 * Why not got: its per-request machinery (options merging, hooks, its own stream wrapper) cost
 * more CPU than the request itself for small artifacts (docs/UPDATER.md §8, "Many small
 * artifacts").
 */
import type { Fetcher, FetchInit } from '#core/ports.js';
import { nodeAgents, nodeGet, type NodeAgents } from './node-get.js';
import { RequestTargets, type RequestTarget } from './request-target.js';
import { PipelinePool, requestText } from './pipeline-pool.js';
import { WarmConnections, type EarlySocket } from './warm-connections.js';
import type { Socket } from 'node:net';

export interface HttpFetcherOptions {
  /** Longest wait for a connection: DNS lookup, TCP connect and TLS handshake together. */
  readonly connectTimeoutMs: number;
  /**
   * Pipelined sockets per origin for artifact GETs, http and https (limits.parallel); 0 or unset
   * sends every GET through node:http (docs/UPDATER.md §5, "Pipelined GETs").
   */
  readonly pipelineConnections?: number;
  /**
   * Trust anchors for `https:` (PEM), replacing node's store for this fetcher (tests, a
   * registry behind a private CA); unset, node's store and NODE_EXTRA_CA_CERTS apply.
   */
  readonly ca?: string | readonly string[];
  /** Milliseconds on a monotonic clock (tests): when a direct origin tries pipelining again. */
  readonly now?: () => number;
}

function portOf(target: RequestTarget): number {
  return target.port !== '' ? Number(target.port) : target.secure ? 443 : 80;
}

/** The Host header of `target` (RFC 9110 §7.2: an IPv6 literal in brackets). */
function hostOf(target: RequestTarget): string {
  const host = target.hostname.includes(':') ? `[${target.hostname}]` : target.hostname;
  return target.port === '' ? host : `${host}:${target.port}`;
}

/** The target of `url` when a GET of it may take the pipeline: http or https, no user info. */
function pipelineTarget(targets: RequestTargets, url: string): RequestTarget | undefined {
  let target: RequestTarget;
  try {
    target = targets.of(url);
  } catch {
    return undefined;
  }
  return target.auth !== undefined ? undefined : target;
}

/**
 * The socket of `early` when it was opened to `target`'s origin; otherwise it is closed now
 * rather than left for its idle timer.
 */
function adoptFor(early: EarlySocket, target: RequestTarget | undefined): Socket | undefined {
  const socket = early.adopt();
  const same =
    target !== undefined &&
    early.secure === target.secure &&
    early.host === target.hostname &&
    early.port === portOf(target);
  if (same) return socket;
  socket?.destroy();
  return undefined;
}

/** The Fetcher over node:http(s), and a way to open a run's first connection early. */
export interface HttpFetcher extends Fetcher {
  /**
   * Opens a connection to `url`'s origin now (TLS handshake included for https), for the next
   * GET there that would open one through node:http(s) (warm-connections.ts); over `early` when
   * that TCP connection goes to the same origin (it is closed otherwise).
   */
  preconnect(url: string, early?: EarlySocket): void;
}

/** Builds a Fetcher over node:http(s). */
export function createHttpFetcher(options: HttpFetcherOptions): HttpFetcher {
  const targets = new RequestTargets();
  const ca = options.ca;
  const tls = ca === undefined ? {} : { ca: typeof ca === 'string' ? ca : [...ca] };
  const agents = nodeAgents(tls);
  const warm = new WarmConnections(agents.http);
  // node:https is loaded by the first https preconnect or request (lazy-builtin.ts).
  let warmHttps: WarmConnections | undefined;
  const connections = options.pipelineConnections ?? 0;
  // What the pipeline hands back (an odd answer, every GET of a direct origin) goes through
  // agents of its own with `parallel` sockets per origin, so `parallel` still counts the
  // connections of the small blobs' extra download slots (src/core/transfer/pull.ts), which queue here;
  // the other requests (manifest, ranges, the ranking) never wait behind them.
  const pipeAgents = nodeAgents(tls, Math.max(1, connections));
  const viaNode = (url: string, init: FetchInit, via: NodeAgents = agents) =>
    nodeGet(targets, options.connectTimeoutMs, url, init, via);
  const pool =
    connections > 0
      ? new PipelinePool({
          connections,
          connectTimeoutMs: options.connectTimeoutMs,
          tls,
          fallback: (url, init) => viaNode(url, init, pipeAgents),
          ...(options.now === undefined ? {} : { now: options.now }),
        })
      : undefined;
  const pipeTarget = (url: string): RequestTarget | undefined =>
    pool === undefined ? undefined : pipelineTarget(targets, url);
  return {
    get(url, init) {
      const target = init.acceptGzip === true ? undefined : pipeTarget(url);
      if (target === undefined || pool === undefined) return viaNode(url, init);
      const text = requestText(target.path, hostOf(target), init.headers);
      if (text === undefined) return viaNode(url, init);
      // A direct origin's GET goes on to node:http from the pool (OriginPool.route).
      return pool.get(target.secure, target.hostname, portOf(target), url, text, init);
    },
    preconnect(url, early) {
      const target = pipelineTarget(targets, url);
      const socket = early === undefined ? undefined : adoptFor(early, target);
      if (target === undefined) return;
      const to = target.secure ? (warmHttps ??= new WarmConnections(agents.https())) : warm;
      to.open(target.hostname, portOf(target), socket);
    },
    pipelines: (url) => {
      const target = pipeTarget(url);
      // Not an origin that broke pipelined connections too often (pipeline-pool.ts MAX_STRIKES).
      return (
        target !== undefined &&
        pool?.direct(target.secure, target.hostname, portOf(target)) !== true
      );
    },
  };
}
