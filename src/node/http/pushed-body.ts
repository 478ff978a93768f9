/**
 * A response body as the Fetcher port's async iterable (src/core/ports.ts FetchResponse.body),
 * fed by whoever reads the socket: node:http's response events (response-body.ts) or a
 * pipelined connection cutting answers by their Content-Length (pipeline-connection.ts).
 * Why not `for await` over a stream: node's stream iterator builds an end-of-stream watch, a
 * promise chain and several listeners per response, and at 10,000 small artifacts that cost
 * more than reading the bytes (docs/UPDATER.md §8, "Many small artifacts"); here a chunk is
 * handed straight to a waiting reader.
 *
 * Back-pressure: chunks that arrive while nobody waits are held, and past HOLD_BYTES the source
 * is paused until the reader takes them, so memory stays bounded however fast the server sends
 * (the core writes each chunk before asking for the next).
 */
import type { UpdateError } from '#core/errors.js';

/** What the body asks of its connection. */
export interface BodySource {
  pause(): void;
  resume(): void;
  /** The reader left before the end: the connection cannot be reused. */
  abandon(): void;
}

/**
 * Bytes held for the reader before the source is paused: a stream's own buffer size, so a
 * small body (the whole of it often comes with the headers, before anyone reads) is never
 * paused and resumed, which cost two ticks per artifact.
 */
const HOLD_BYTES = 64 * 1024;
const DONE: IteratorResult<Uint8Array> = { value: undefined, done: true };

export class PushedBody implements AsyncIterableIterator<Uint8Array> {
  private readonly held: Buffer[] = [];
  private heldBytes = 0;
  private paused = false;
  private ended = false;
  private failure: UpdateError | undefined;
  private waiter:
    { resolve(r: IteratorResult<Uint8Array>): void; reject(e: unknown): void } | undefined;

  constructor(private readonly source: BodySource) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  get done(): boolean {
    return this.ended || this.failure !== undefined;
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    const chunk = this.held.shift();
    if (chunk !== undefined) {
      this.heldBytes -= chunk.length;
      if (this.paused && this.heldBytes < HOLD_BYTES) {
        this.paused = false;
        this.source.resume();
      }
      return Promise.resolve({ value: chunk, done: false });
    }
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.ended) return Promise.resolve(DONE);
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  return(): Promise<IteratorResult<Uint8Array>> {
    this.held.length = 0;
    this.heldBytes = 0;
    if (!this.done) {
      this.ended = true;
      this.source.abandon();
    }
    return Promise.resolve(DONE);
  }

  push(chunk: Buffer): void {
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
      this.source.pause();
    }
  }

  end(): void {
    if (this.done) return;
    this.ended = true;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.resolve(DONE);
  }

  fail(error: UpdateError): void {
    if (this.done) return;
    this.failure = error;
    // Held chunks are dropped: a broken body is never handed on in part after its error.
    this.held.length = 0;
    this.heldBytes = 0;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.reject(error);
  }
}
