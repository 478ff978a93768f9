/**
 * The body of a node:http response as the Fetcher port's async iterable (src/core/ports.ts
 * FetchResponse.body). Why not `for await` over the IncomingMessage: node's stream iterator
 * builds an end-of-stream watch, a promise chain and several listeners per response, and at
 * 10,000 small artifacts that cost more than reading the bytes (docs/UPDATER.md §8, "Many
 * small artifacts"). Here a response gets four listeners and a one-chunk hand-over.
 *
 * Back-pressure: chunks that arrive while nobody waits are held, and past HOLD_BYTES the
 * response is paused until the reader takes them, so memory stays bounded however fast the
 * server sends (the core writes each chunk before asking for the next).
 */
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { UpdateError } from '../core/errors.js';

interface Waiter {
  resolve(result: IteratorResult<Uint8Array>): void;
  reject(error: unknown): void;
}

const DONE: IteratorResult<Uint8Array> = { value: undefined, done: true };

/**
 * Bytes held for the reader before the response is paused: a stream's own buffer size, so a
 * small body (the whole of it often comes with the headers, before anyone reads) is never
 * paused and resumed, which cost two ticks per artifact.
 */
const HOLD_BYTES = 64 * 1024;

/** A close before the body's end, when node reported no error of its own. */
function prematureClose(): NodeJS.ErrnoException {
  const error = new Error('premature close') as NodeJS.ErrnoException;
  error.code = 'ERR_STREAM_PREMATURE_CLOSE';
  return error;
}

class ResponseBody implements AsyncIterableIterator<Uint8Array> {
  private readonly held: Buffer[] = [];
  private heldBytes = 0;
  private paused = false;
  private ended = false;
  private failure: UpdateError | undefined;
  private waiter: Waiter | undefined;

  constructor(
    private readonly request: ClientRequest,
    private readonly response: IncomingMessage,
    private readonly fail: (error: unknown) => UpdateError,
  ) {
    response.on('data', (chunk: Buffer) => this.onData(chunk));
    response.once('end', () => this.onEnd());
    response.once('error', (error: unknown) => this.onFailure(error));
    // An error event precedes close on a broken connection; a close alone is still no end.
    response.once('close', () => {
      if (!this.ended) this.onFailure(prematureClose());
    });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    const chunk = this.held.shift();
    if (chunk !== undefined) {
      this.heldBytes -= chunk.length;
      if (this.paused && this.heldBytes < HOLD_BYTES) {
        this.paused = false;
        this.response.resume();
      }
      return Promise.resolve({ value: chunk, done: false });
    }
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.ended) return Promise.resolve(DONE);
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  /** Left early (the core stopped at the signed size, or threw): drop the rest. */
  return(): Promise<IteratorResult<Uint8Array>> {
    this.held.length = 0;
    this.heldBytes = 0;
    if (!this.ended) {
      this.ended = true;
      this.request.destroy();
    }
    return Promise.resolve(DONE);
  }

  private onData(chunk: Buffer): void {
    const waiter = this.waiter;
    if (waiter !== undefined) {
      this.waiter = undefined;
      waiter.resolve({ value: chunk, done: false });
      return;
    }
    this.held.push(chunk);
    this.heldBytes += chunk.length;
    if (!this.paused && this.heldBytes >= HOLD_BYTES) {
      this.paused = true;
      this.response.pause();
    }
  }

  private onEnd(): void {
    this.ended = true;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.resolve(DONE);
  }

  private onFailure(error: unknown): void {
    if (this.ended || this.failure !== undefined) return;
    this.failure = this.fail(error);
    // A broken connection: nothing more comes; make sure the socket is not reused.
    this.request.destroy();
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.reject(this.failure);
  }
}

/**
 * The chunks of `response`; a broken connection becomes the error `fail` maps it to (NETWORK,
 * or ABORTED after an abort), and leaving early destroys `request` (and so its socket).
 */
export function responseBody(
  request: ClientRequest,
  response: IncomingMessage,
  fail: (error: unknown) => UpdateError,
): AsyncIterable<Uint8Array> {
  return new ResponseBody(request, response, fail);
}
