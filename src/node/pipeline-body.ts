/**
 * The body of a pipelined answer as the Fetcher port's async iterable, cut from the
 * connection's bytes by its Content-Length (pipeline-connection.ts). Chunks that arrive while
 * nobody reads are held; past HOLD_BYTES the connection is paused until the reader takes them
 * (as response-body.ts does for node:http), so a slow consumer bounds memory.
 */
import type { UpdateError } from '../core/errors.js';

/** What the body asks of its connection. */
export interface BodySource {
  pause(): void;
  resume(): void;
  /** The reader left before the end: the connection cannot be reused. */
  abandon(): void;
}

const HOLD_BYTES = 64 * 1024;
const DONE: IteratorResult<Uint8Array> = { value: undefined, done: true };

export class PipelineBody implements AsyncIterableIterator<Uint8Array> {
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
