/**
 * Pipelined GETs over http and https (docs/UPDATER.md §5, "Pipelined GETs"): up to `connections`
 * sockets per origin, each carrying several requests at once, the next one routed to the
 * least-loaded socket. Why: node:http's per-request machinery and one socket write per request
 * were the largest CPU cost of a pull of many small artifacts (§8, "Many small artifacts").
 * Only a GET the fetcher hands here (http or https, no Range, no gzip, no user info) comes
 * this way, and any answer but a plain 200 with a Content-Length goes back to node:http
 * (`fallback`).
 */
import type { ConnectionOptions } from 'node:tls';
import { UpdateError } from '#core/errors.js';
import type { FetchInit, FetchResponse } from '#core/ports.js';
import { networkError } from './network-error.js';
import { SignalSets } from './signal-sets.js';
import {
  PipelineConnection,
  type ConnectionOwner,
  type PipeRequest,
} from './pipeline-connection.js';

export interface PipelinePoolOptions {
  /** Sockets per origin (limits.parallel: the core's count of connections). */
  readonly connections: number;
  readonly connectTimeoutMs: number;
  /** TLS options of `https:` origins (the trust anchors node:https's agent gets too). */
  readonly tls?: Pick<ConnectionOptions, 'ca'>;
  /** Sends a GET the node:http way (an odd answer on a pipelined connection). */
  readonly fallback: (url: string, init: FetchInit) => Promise<FetchResponse>;
  /** Milliseconds on a monotonic clock: when an origin's node:http time ends (`DIRECT_FOR_MS`). */
  readonly now?: () => number;
}

/** A request whose connection ended before its answer is sent again at most this often. */
const MAX_RESENDS = 2;

/**
 * An origin whose server broke pipelined connections this often in a row, each before it had
 * answered a pipeline's depth of GETs on it (pipeline-connection.ts PROOF_ANSWERS), takes
 * node:http(s) for `DIRECT_FOR_MS`: it redirects (a release host sending every artifact to a
 * CDN), streams without a length, or closes after each answer, and every connection it breaks
 * would re-send the GETs queued behind (docs/UPDATER.md §5, "Pipelined GETs"). A connection
 * that answers that depth in full (nginx closes only after `keepalive_requests`) clears the
 * strikes; a reset or a timeout is the network's doing and no strike.
 */
const MAX_STRIKES = 2;

/**
 * How long an origin stays on node:http(s) after its strikes; then pipelining is tried again
 * from no strikes. A CLI run ends long before; the desktop app and `serve` run for weeks, and a
 * registry that redirected for an hour (a maintenance page, a CDN switch) would otherwise leave
 * their pulls of many small artifacts on the per-request path until a restart (§8). A server
 * that still breaks the pipeline costs two connections per hour, and the GETs queued on them
 * sent again.
 */
export const DIRECT_FOR_MS = 60 * 60 * 1000;

/** The pipelined requests in flight under each signal, failed together when it aborts. */
const inFlight = new SignalSets<PipeRequest>((r) =>
  r.conn?.abort(r, new UpdateError('ABORTED', 'request aborted')),
);

class OriginPool implements ConnectionOwner {
  private readonly conns: PipelineConnection[] = [];
  /** The newest TLS session the origin gave (https), resumed by its next connection. */
  private session: Buffer | undefined;
  private strikes = 0;
  /** Too many strikes: every GET goes to node:http(s) until then (ms, `now`). */
  private directUntil: number | undefined;

  constructor(
    private readonly hostname: string,
    private readonly port: number,
    private readonly secure: boolean,
    private readonly options: PipelinePoolOptions,
  ) {}

  route(request: PipeRequest): void {
    if (this.direct) {
      this.fallback(request);
      return;
    }
    let best: PipelineConnection | undefined;
    for (const c of this.conns) {
      if (c.open && (best === undefined || c.load < best.load)) best = c;
    }
    if (best === undefined || (best.load > 0 && this.conns.length < this.options.connections)) {
      best = new PipelineConnection(
        {
          hostname: this.hostname,
          port: this.port,
          connectTimeoutMs: this.options.connectTimeoutMs,
          ...(this.secure
            ? {
                secure: {
                  tls: this.options.tls ?? {},
                  session: this.session,
                  onSession: (session) => {
                    this.session = session;
                  },
                  onFailure: () => {
                    this.session = undefined;
                  },
                },
              }
            : {}),
        },
        this,
      );
      this.conns.push(best);
    }
    best.send(request);
  }

  resend(requests: PipeRequest[]): void {
    for (const r of requests) {
      r.conn = undefined;
      if (r.signal.aborted) {
        r.reject(new UpdateError('ABORTED', 'request aborted'));
      } else if (this.direct) {
        this.fallback(r);
      } else if (r.resends >= MAX_RESENDS) {
        const error = new Error('connection closed before the answer') as NodeJS.ErrnoException;
        error.code = 'ECONNRESET';
        r.reject(networkError(error, r.url, r.signal));
      } else {
        r.resends++;
        this.route(r);
      }
    }
  }

  fallback(request: PipeRequest): void {
    request.conn = undefined;
    // node:http watches the signal from here on.
    request.release();
    this.options.fallback(request.url, request.init).then(
      (response) => request.resolve(response),
      // node:http's path rejects with an UpdateError (network-error.ts) only.
      (error: unknown) => request.reject(error as Error),
    );
  }

  /** Whether GETs go to node:http(s) now; the first call after the window starts afresh. */
  get direct(): boolean {
    if (this.directUntil === undefined) return false;
    if (this.now() < this.directUntil) return true;
    this.directUntil = undefined;
    this.strikes = 0;
    return false;
  }

  broken(): void {
    if (++this.strikes >= MAX_STRIKES) this.directUntil = this.now() + DIRECT_FOR_MS;
  }

  /** Monotonic by default: a clock stepped back (NTP fixing a date) must not stretch the window. */
  private now(): number {
    return this.options.now === undefined ? performance.now() : this.options.now();
  }

  proven(): void {
    this.strikes = 0;
  }

  gone(conn: PipelineConnection): void {
    const at = this.conns.indexOf(conn);
    if (at >= 0) this.conns.splice(at, 1);
  }
}

const originKey = (secure: boolean, hostname: string, port: number): string =>
  `${secure ? 'https' : 'http'}://${hostname}:${port}`;

export class PipelinePool {
  private readonly origins = new Map<string, OriginPool>();

  constructor(private readonly options: PipelinePoolOptions) {}

  /** True while the origin is on node:http(s) after too many strikes (MAX_STRIKES). */
  direct(secure: boolean, hostname: string, port: number): boolean {
    return this.origins.get(originKey(secure, hostname, port))?.direct === true;
  }

  /** Sends `text` (a GET of `url`, written by requestText) to `hostname:port`, over TLS if `secure`. */
  get(
    secure: boolean,
    hostname: string,
    port: number,
    url: string,
    text: string,
    init: FetchInit,
  ): Promise<FetchResponse> {
    const key = originKey(secure, hostname, port);
    let origin = this.origins.get(key);
    if (origin === undefined) {
      origin = new OriginPool(hostname, port, secure, this.options);
      this.origins.set(key, origin);
    }
    const pool = origin;
    const signal = init.signal;
    if (signal.aborted) return Promise.reject(new UpdateError('ABORTED', 'request aborted'));
    const set = inFlight.of(signal);
    return new Promise<FetchResponse>((resolve, reject) => {
      const request: PipeRequest = {
        url,
        text,
        init,
        signal,
        resends: 0,
        conn: undefined,
        resolve,
        reject: (error) => {
          set.delete(request);
          reject(error);
        },
        release: () => set.delete(request),
      };
      set.add(request);
      pool.route(request);
    });
  }
}

/** Header names the pipelined path writes itself or cannot honour. */
const OWN_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'range',
  'if-range',
  'expect',
  'upgrade',
  'te',
]);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * The header lines of a frozen headers object (the core reuses one for every artifact GET,
 * http-get.ts NO_HEADERS), or null when this path does not send them: checked and written once
 * instead of once per request. Only a frozen object is remembered: its headers cannot change.
 */
const linesOfFrozen = new WeakMap<object, string | null>();

function headerLines(headers: Readonly<Record<string, string>>): string | undefined {
  const frozen = Object.isFrozen(headers);
  const known = frozen ? linesOfFrozen.get(headers) : undefined;
  if (known !== undefined) return known ?? undefined;
  let lines: string | null = '';
  for (const name in headers) {
    const value = headers[name] as string;
    if (!TOKEN.test(name) || OWN_HEADERS.has(name.toLowerCase()) || !FIELD_VALUE.test(value)) {
      lines = null;
      break;
    }
    lines += `${name}: ${value}\r\n`;
  }
  if (frozen) linesOfFrozen.set(headers, lines);
  return lines ?? undefined;
}

/**
 * The request bytes of a GET of `path` to `host` with `headers`, or undefined when a header
 * is one this path does not send (a Range, a connection header) or would be refused by
 * node:http (a name that is not a token, a CR, LF or NUL in a value): node:http then takes it
 * and answers as it always has.
 */
export function requestText(
  path: string,
  host: string,
  headers: Readonly<Record<string, string>>,
): string | undefined {
  const lines = headerLines(headers);
  if (lines === undefined) return undefined;
  return `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n${lines}Connection: keep-alive\r\n\r\n`;
}
