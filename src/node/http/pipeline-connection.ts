/**
 * One pipelined HTTP/1.1 connection (docs/UPDATER.md §5, "Pipelined GETs"): GETs are written
 * as they come (those of one tick in one socket write) and answered in order; each answer is
 * framed by its Content-Length (pipeline-head.ts) and handed on as it streams
 * (pushed-body.ts). Whatever breaks the order (a close, `Connection: close`, an odd answer,
 * an abort or early exit of a request whose answer others queue behind) ends the connection,
 * and its owner (pipeline-pool.ts) re-sends the unanswered GETs, which are idempotent.
 */
import type { Socket } from 'node:net';
import type { UpdateError } from '#core/errors.js';
import type { FetchInit, FetchResponse } from '#core/ports.js';
import { headerOf } from './header-of.js';
import { errnoError, networkError } from './network-error.js';
import { PushedBody } from './pushed-body.js';
import { HEAD_CAP_BYTES, parsePlainHead } from './pipeline-head.js';
import { openSocket, readyEvent, type ConnectionTarget } from './pipeline-socket.js';

export type { ConnectionTarget } from './pipeline-socket.js';

/** One GET on its way through the pool. */
export interface PipeRequest {
  readonly url: string;
  /** The request as written on the wire. */
  readonly text: string;
  readonly init: FetchInit;
  readonly signal: AbortSignal;
  /** Times it was re-sent after its connection ended before answering it. */
  resends: number;
  /** Where it waits for its answer now. */
  conn: PipelineConnection | undefined;
  resolve(response: FetchResponse): void;
  /** Fails it before its answer came (and releases it). */
  reject(error: Error): void;
  /** Its body ended or failed: nothing more to abort. */
  release(): void;
}

/** What a connection hands back to its pool. */
export interface ConnectionOwner {
  /** Unanswered requests of an ended connection, to send again. */
  resend(requests: PipeRequest[]): void;
  /** A request answered with something this path does not frame: node:http takes it. */
  fallback(request: PipeRequest): void;
  /** The connection ended; it takes no more requests. */
  gone(conn: PipelineConnection): void;
  /**
   * The server ended it on purpose (an answer it cannot frame, a `Connection: close`) with GETs
   * still queued, before it had answered PROOF_ANSWERS: a strike (pipeline-pool.ts).
   */
  broken(): void;
  /** It answered PROOF_ANSWERS GETs in full: the origin keeps pipelined connections. */
  proven(): void;
}

const CRLFCRLF = Buffer.from('\r\n\r\n');

/**
 * Answers a connection takes in full to show that its origin keeps pipelined connections: a
 * pipeline's depth (src/core/transfer/pull.ts PIPELINE_DEPTH). Fewer before the server ends it is a
 * strike (pipeline-pool.ts MAX_STRIKES).
 */
const PROOF_ANSWERS = 4;

export class PipelineConnection {
  private readonly socket: Socket;
  /** Requests written (or about to be) and not answered yet, in order. */
  private readonly queue: PipeRequest[] = [];
  /** The request whose body is arriving, its body and the bytes still due. */
  private current: { request: PipeRequest; body: PushedBody } | undefined;
  private left = 0;
  private out = '';
  /** A head split across reads, until its end arrives. */
  private head: Buffer | undefined;
  private connected = false;
  /** Answers taken from this connection in full. */
  private answered = 0;
  /** The server said `Connection: close`: nothing new is sent here. */
  private closing = false;
  private ended = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    target: ConnectionTarget,
    private readonly owner: ConnectionOwner,
  ) {
    this.socket = openSocket(target);
    this.timer = setTimeout(() => {
      this.end(
        errnoError('ETIMEDOUT', `no connection within ${target.connectTimeoutMs} ms`),
        'network',
      );
    }, target.connectTimeoutMs);
    // Connected means ready for requests (readyEvent: after the TLS handshake).
    this.socket.once(readyEvent(target), () => {
      this.connected = true;
      clearTimeout(this.timer);
      this.timer = undefined;
    });
    this.socket.on('data', (data: Buffer) => this.onData(data));
    // A reset or any socket error is the network's doing, not the server's way (no strike).
    this.socket.on('error', (error) => this.end(error, 'network'));
    // A close without a `Connection: close` before it is no strike either: a reset may come as
    // a bare close, and a server closing on purpose says so (RFC 9112 §9.6).
    this.socket.once('close', () =>
      this.end(errnoError('ECONNRESET', 'connection closed'), 'network'),
    );
  }

  /** Requests sent here and not finished (answered in full or failed). */
  get load(): number {
    return this.queue.length + (this.current === undefined ? 0 : 1);
  }

  /** False once the connection ended or is ending. */
  get open(): boolean {
    return !this.ended && !this.closing;
  }

  send(request: PipeRequest): void {
    // An idle socket is unref'd (as node's agent does), so it never holds the process open.
    if (this.load === 0) this.socket.ref();
    request.conn = this;
    this.queue.push(request);
    if (this.out === '') process.nextTick(() => this.flush());
    this.out += request.text;
  }

  /** `request` was aborted: fail it; if it is still on the wire here, end the connection. */
  abort(request: PipeRequest, error: UpdateError): void {
    if (this.current?.request === request) {
      this.current.body.fail(error);
      this.current = undefined;
      request.release();
      this.end(undefined, 'ours');
      return;
    }
    const at = this.queue.indexOf(request);
    if (at < 0) return;
    this.queue.splice(at, 1);
    request.reject(error);
    // Its answer may be on its way: only a new connection keeps the order.
    this.end(undefined, 'ours');
  }

  private flush(): void {
    const out = this.out;
    this.out = '';
    if (!this.ended && out !== '') this.socket.write(out, 'latin1');
  }

  private onData(data: Buffer): void {
    let at = 0;
    while (at < data.length && !this.ended) {
      const current = this.current;
      if (current !== undefined) {
        const n = Math.min(this.left, data.length - at);
        current.body.push(data.subarray(at, at + n));
        at += n;
        this.left -= n;
        if (this.left === 0) this.finishBody(current.request, current.body);
        continue;
      }
      at = this.onHeadBytes(data, at);
    }
  }

  /** Reads head bytes from `data` at `at`; answers where the unread bytes start. */
  private onHeadBytes(data: Buffer, at: number): number {
    const before = this.head;
    const bytes =
      before === undefined ? data.subarray(at) : Buffer.concat([before, data.subarray(at)]);
    const end = bytes.indexOf(CRLFCRLF, before === undefined ? 0 : Math.max(0, before.length - 3));
    if (end < 0 || end + 4 > HEAD_CAP_BYTES) {
      if (bytes.length >= HEAD_CAP_BYTES || end >= 0) {
        this.head = undefined;
        this.failFirst(
          errnoError('HPE_HEADER_OVERFLOW', `response head over ${HEAD_CAP_BYTES} bytes`),
        );
        return data.length;
      }
      this.head = Buffer.from(bytes);
      return data.length;
    }
    this.head = undefined;
    const request = this.queue.shift();
    if (request === undefined) {
      // An answer nobody asked for: the order is lost.
      this.end(errnoError('HPE_UNEXPECTED', 'unsolicited response'));
      return data.length;
    }
    const next = at + end + 4 - (before?.length ?? 0);
    const head = parsePlainHead(bytes.toString('latin1', 0, end));
    if (head === undefined) {
      this.owner.fallback(request);
      this.end();
      return data.length;
    }
    if (head.close) this.closing = true;
    const body = new PushedBody({
      pause: () => this.socket.pause(),
      resume: () => this.socket.resume(),
      abandon: () => {
        if (this.current?.body === body) this.current = undefined;
        request.release();
        this.end(undefined, 'ours');
      },
    });
    const raw = head.rawHeaders;
    request.resolve({
      status: head.status,
      header: (name) => headerOf(raw, name.toLowerCase()),
      body,
      discard: () => {
        void body.return();
      },
    });
    if (head.contentLength === 0) this.finishBody(request, body);
    else {
      this.current = { request, body };
      this.left = head.contentLength;
    }
    return next;
  }

  private finishBody(request: PipeRequest, body: PushedBody): void {
    if (++this.answered === PROOF_ANSWERS) this.owner.proven();
    this.current = undefined;
    request.release();
    body.end();
    if (this.closing) this.end();
    else if (this.load === 0) this.socket.unref();
  }

  /** The head of the first unanswered request broke the rules: it fails, the others go again. */
  private failFirst(error: Error): void {
    const request = this.queue.shift();
    request?.reject(networkError(error, request.url, request.signal));
    this.end();
  }

  /**
   * Ends the connection: a body in progress fails with `error` (or a premature close);
   * unanswered requests fail with `error` if the connection never came up (the server is not
   * there), else go back to the owner to be sent again, told first (`broken`) when the end
   * was the server's doing: not `ours` (an abort, a reader that left), not the `network`'s (a
   * reset, a timeout).
   */
  private end(error?: Error, cause: 'server' | 'ours' | 'network' = 'server'): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.timer);
    this.socket.destroy();
    const reason = error ?? errnoError('ERR_STREAM_PREMATURE_CLOSE', 'premature close');
    const current = this.current;
    this.current = undefined;
    if (current !== undefined) {
      current.request.release();
      current.body.fail(networkError(reason, current.request.url, current.request.signal));
    }
    const left = this.queue.splice(0);
    this.owner.gone(this);
    if (left.length === 0) return;
    if (!this.connected) {
      for (const r of left) r.reject(networkError(reason, r.url, r.signal));
      return;
    }
    if (cause === 'server' && this.answered < PROOF_ANSWERS) this.owner.broken();
    this.owner.resend(left);
  }
}
