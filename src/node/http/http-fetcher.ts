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
import type { ClientRequest, IncomingMessage } from 'node:http';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { Agent as HttpsAgent, AgentOptions as HttpsAgentOptions } from 'node:https';
import type { Socket } from 'node:net';
import { UpdateError } from '#core/errors.js';
import type { Fetcher, FetchInit, FetchResponse } from '#core/ports.js';
import { isGzipCoding } from '#core/transfer/index.js';
import { gunzipBody } from './gzip-body.js';
import { https } from '../lazy-builtin.js';
import { errnoError, networkError } from './network-error.js';
import { headerOf } from './header-of.js';
import { RequestTargets, type RequestTarget } from './request-target.js';
import { PipelinePool, requestText } from './pipeline-pool.js';
import { responseBody } from './response-body.js';
import { SignalSets } from './signal-sets.js';

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

/**
 * Destroys `request` unless its socket is connected (TLS included) within `ms`. Armed when
 * the agent hands over a new socket (before its lookup and connect start); a kept-alive one is
 * connected already, so most requests of a pull arm no timer at all.
 */
function connectDeadline(request: ClientRequest, secure: boolean, ms: number): () => void {
  let timer: NodeJS.Timeout | undefined;
  const clear = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  request.once('socket', (socket: Socket) => {
    // `connecting`, not only `reusedSocket`: a request that waited for a socket (maxSockets)
    // is handed one that just answered another and is connected, with `reusedSocket` unset;
    // a watch on it would never see its connect (and piled up a listener per request).
    if (request.reusedSocket || request.destroyed || !socket.connecting) return;
    const event = secure ? 'secureConnect' : 'connect';
    timer = setTimeout(() => {
      request.destroy(errnoError('ETIMEDOUT', `no connection within ${ms} ms`));
    }, ms);
    socket.once(event, clear);
    // Answered or failed first: take the watch off the socket, which may serve others.
    request.once('close', () => socket.off(event, clear));
  });
  return clear;
}

/** node:http requests in flight under each signal, destroyed together when it aborts. */
const inFlight = new SignalSets<ClientRequest>((r) => r.destroy(new Error('request aborted')));

/** Destroys `request` if `signal` aborts before it closes (signal-sets.ts says why not node's). */
function watchAbort(signal: AbortSignal, request: ClientRequest): void {
  const set = inFlight.of(signal);
  set.add(request);
  request.once('close', () => set.delete(request));
}

/** Builds a Fetcher over node:http(s). */
export function createHttpFetcher(options: HttpFetcherOptions): Fetcher {
  const targets = new RequestTargets();
  // node's global agents, but without their 5 s socket timeout: that timeout is re-armed on
  // every read and write of a socket and adds a timeout watch to every request, a measurable
  // share of a pull of small artifacts (docs/UPDATER.md §8, "Many small artifacts"). The
  // core's stall watch bounds a silent transfer (§5) and the connect deadline a silent
  // connect; an idle kept-alive socket is unref'd and dropped when the server closes it.
  const agentOptions = { keepAlive: true, scheduling: 'lifo' as const, noDelay: true };
  const ca = options.ca;
  const tls = ca === undefined ? {} : { ca: typeof ca === 'string' ? ca : [...ca] };
  // node:https (and node:tls with it) is loaded by the first https request, not at start.
  const httpsAgent = (agentOptionsOf: HttpsAgentOptions): (() => HttpsAgent) => {
    let agent: HttpsAgent | undefined;
    return () => (agent ??= new (https().Agent)(agentOptionsOf));
  };
  const agents = {
    http: new HttpAgent(agentOptions),
    https: httpsAgent({ ...agentOptions, ...tls }),
  };
  const connections = options.pipelineConnections ?? 0;
  // What the pipeline hands back (an odd answer, every GET of a direct origin) goes through
  // agents of its own with `parallel` sockets per origin, so `parallel` still counts the
  // connections of the small blobs' extra download slots (src/core/transfer/pull.ts), which queue here;
  // the other requests (manifest, ranges, the ranking) never wait behind them.
  const pipeAgents = {
    http: new HttpAgent({ ...agentOptions, maxSockets: Math.max(1, connections) }),
    https: httpsAgent({ ...agentOptions, maxSockets: Math.max(1, connections), ...tls }),
  };
  const viaNode = (
    url: string,
    init: FetchInit,
    { http: httpAgent, https: httpsAgentOf } = agents,
  ): Promise<FetchResponse> =>
    new Promise<FetchResponse>((resolve, reject) => {
      let target: RequestTarget;
      try {
        target = targets.of(url);
      } catch (error) {
        reject(networkError(error, url, init.signal));
        return;
      }
      if (init.signal.aborted) {
        reject(new UpdateError('ABORTED', 'request aborted'));
        return;
      }
      const { secure } = target;
      const headers = { ...init.headers };
      if (init.acceptGzip === true) headers['accept-encoding'] = 'gzip';
      // Plain options (request-target.ts), not a URL node would convert per request.
      const request = secure
        ? https().request({ ...target, method: 'GET', headers, agent: httpsAgentOf() })
        : httpRequest({ ...target, method: 'GET', headers, agent: httpAgent });
      // An error event with no listener throws (it crashed a test run): the request's
      // outcome is decided by onError below or by the body, so a later one (an abort of a
      // request that already failed, between its error and its close) is dropped here.
      request.on('error', () => undefined);
      watchAbort(init.signal, request);
      const clear = connectDeadline(request, secure, options.connectTimeoutMs);
      const onError = (error: unknown): void => {
        clear();
        reject(networkError(error, url, init.signal));
      };
      request.once('error', onError);
      request.once('response', (response: IncomingMessage) => {
        clear();
        request.off('error', onError);
        // Later errors surface while the body is iterated; one that comes while nobody
        // reads it (an abort after discard(), between reads) must not go uncaught (the
        // request's own sink is set above).
        response.on('error', () => undefined);
        const header = (name: string): string | undefined =>
          headerOf(response.rawHeaders, name.toLowerCase());
        const body = responseBody(request, response, (error) =>
          networkError(error, url, init.signal),
        );
        // The request, not only the response: that is what closes the socket at once.
        const discard = (): void => {
          request.destroy();
        };
        const status = response.statusCode ?? 0;
        if (init.acceptGzip === true && isGzipCoding(header('content-encoding'))) {
          let wire = 0;
          resolve({
            status,
            header,
            body: gunzipBody(body, url, (count) => (wire += count)),
            inflated: true,
            wireBytes: () => wire,
            discard,
          });
          return;
        }
        resolve({ status, header, body, discard });
      });
      request.end();
    });
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
  const portOf = (target: RequestTarget): number =>
    target.port !== '' ? Number(target.port) : target.secure ? 443 : 80;
  /** The target of `url` when a GET of it may take the pipeline: http or https, no user info. */
  const pipeTarget = (url: string): RequestTarget | undefined => {
    if (pool === undefined) return undefined;
    let target: RequestTarget;
    try {
      target = targets.of(url);
    } catch {
      return undefined;
    }
    return target.auth !== undefined ? undefined : target;
  };
  /** The origin broke pipelined connections too often (pipeline-pool.ts MAX_STRIKES). */
  const isDirect = (target: RequestTarget): boolean =>
    pool?.direct(target.secure, target.hostname, portOf(target)) === true;
  return {
    get(url, init) {
      const target = init.acceptGzip === true ? undefined : pipeTarget(url);
      if (target === undefined || pool === undefined) return viaNode(url, init);
      const host = target.hostname.includes(':') ? `[${target.hostname}]` : target.hostname;
      const text = requestText(
        target.path,
        target.port === '' ? host : `${host}:${target.port}`,
        init.headers,
      );
      if (text === undefined) return viaNode(url, init);
      // A direct origin's GET goes on to node:http from the pool (OriginPool.route).
      return pool.get(target.secure, target.hostname, portOf(target), url, text, init);
    },
    pipelines: (url) => {
      const target = pipeTarget(url);
      return target !== undefined && !isDirect(target);
    },
  };
}
