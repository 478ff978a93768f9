/**
 * One GET over node:http(s) and keep-alive agents of the fetcher's own (http-fetcher.ts): the
 * connect deadline, the abort and the error mapping; the answer's body streams as it arrives.
 */
import type { ClientRequest, IncomingMessage } from 'node:http';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { Agent as HttpsAgent, AgentOptions as HttpsAgentOptions } from 'node:https';
import type { Socket } from 'node:net';
import { UpdateError } from '#core/errors.js';
import type { FetchInit, FetchResponse } from '#core/ports.js';
import { isGzipCoding } from '#core/transfer/index.js';
import { gunzipBody } from './gzip-body.js';
import { https, zlib } from '../lazy-builtin.js';
import { errnoError, networkError } from './network-error.js';
import { headerOf } from './header-of.js';
import type { RequestTarget, RequestTargets } from './request-target.js';
import { responseBody } from './response-body.js';
import { SignalSets } from './signal-sets.js';

/** Trust anchors of `https:` requests, as node:tls takes them (empty: node's store). */
export type TlsAnchors = { readonly ca?: string | string[] };

/** A keep-alive agent per scheme; node:https is loaded by the first https request. */
export interface NodeAgents {
  readonly http: HttpAgent;
  readonly https: () => HttpsAgent;
}

/**
 * node's global agents, but without their 5 s socket timeout: that timeout is re-armed on
 * every read and write of a socket and adds a timeout watch to every request, a measurable
 * share of a pull of small artifacts (docs/UPDATER.md §8, "Many small artifacts"). The core's
 * stall watch bounds a silent transfer (§5) and the connect deadline a silent connect; an idle
 * kept-alive socket is unref'd and dropped when the server closes it.
 */
export function nodeAgents(tls: TlsAnchors, maxSockets?: number): NodeAgents {
  const agentOptions = {
    keepAlive: true,
    scheduling: 'lifo' as const,
    noDelay: true,
    ...(maxSockets === undefined ? {} : { maxSockets }),
  };
  const httpsOptions: HttpsAgentOptions = { ...agentOptions, ...tls };
  let agent: HttpsAgent | undefined;
  return {
    http: new HttpAgent(agentOptions),
    https: () => (agent ??= new (https().Agent)(httpsOptions)),
  };
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

/** GETs `url` through `agents`, failing with the core's network errors. */
export function nodeGet(
  targets: RequestTargets,
  connectTimeoutMs: number,
  url: string,
  init: FetchInit,
  agents: NodeAgents,
): Promise<FetchResponse> {
  return new Promise<FetchResponse>((resolve, reject) => {
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
      ? https().request({ ...target, method: 'GET', headers, agent: agents.https() })
      : httpRequest({ ...target, method: 'GET', headers, agent: agents.http });
    // An error event with no listener throws (it crashed a test run): the request's
    // outcome is decided by onError below or by the body, so a later one (an abort of a
    // request that already failed, between its error and its close) is dropped here.
    request.on('error', () => undefined);
    watchAbort(init.signal, request);
    const clear = connectDeadline(request, secure, connectTimeoutMs);
    const onError = (error: unknown): void => {
      clear();
      reject(networkError(error, url, init.signal));
    };
    request.once('error', onError);
    request.once('response', (response: IncomingMessage) => {
      clear();
      request.off('error', onError);
      resolve(answerOf(request, response, url, init));
    });
    request.end();
    // node:zlib loads while the request is on its way (a round trip), not after the answer's
    // first byte (about 2 ms of the span docs/UPDATER.md §11.3 measures); once it is sent, so
    // the request itself does not wait for it.
    if (init.acceptGzip === true) request.once('finish', () => setImmediate(zlib));
  });
}

/** The answer the core sees: status, headers, and the body as it streams (inflated if asked). */
function answerOf(
  request: ClientRequest,
  response: IncomingMessage,
  url: string,
  init: FetchInit,
): FetchResponse {
  // Later errors surface while the body is iterated; one that comes while nobody
  // reads it (an abort after discard(), between reads) must not go uncaught (the
  // request's own sink is set in nodeGet).
  response.on('error', () => undefined);
  const header = (name: string): string | undefined =>
    headerOf(response.rawHeaders, name.toLowerCase());
  const body = responseBody(request, response, (error) => networkError(error, url, init.signal));
  // The request, not only the response: that is what closes the socket at once.
  const discard = (): void => {
    request.destroy();
  };
  const status = response.statusCode ?? 0;
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
