/**
 * Hashing and appending a large partial file off the main thread (docs/UPDATER.md §3,
 * Throughput of one large artifact): the main thread only reads the socket and copies each
 * coalesced batch into a buffer shared with one worker thread, which hashes the batch and
 * appends it, in order. Up to MAX_QUEUED batches wait in the worker, so the socket is read
 * while earlier batches are hashed and written; past that the caller waits, so memory stays
 * flat in the artifact's size (at most MAX_QUEUED + 1 batch buffers, reused).
 *
 * The thread is shared by the partials being pulled (hash-worker-host.ts); `close()` leaves
 * it, and the last one out stops it: an abort or an error leaks no thread.
 */
import type { FileHandle } from 'node:fs/promises';
import { UpdateError } from '#core/errors.js';
import type { AppendSink } from './append-sink.js';
import { acquireHashWorker, type OkReply, type WorkerLease } from './hash-worker-host.js';
import type { WorkerRequest } from './hash-append-worker.js';

/** Batches handed to the worker and not yet written, at most. */
export const MAX_QUEUED = 1;

/** Least size of a batch buffer: a coalesced batch plus the chunk that crossed its limit. */
const BATCH_BYTES = 1024 * 1024 + 256 * 1024;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export class HashAppendWorker implements AppendSink {
  private readonly lease: WorkerLease = acquireHashWorker();
  /** Batch buffers free for reuse (shared with the worker, never transferred). */
  private readonly spare: SharedArrayBuffer[] = [];
  /** One promise per batch taken and not yet written, oldest first; none rejects. */
  private readonly queued: Promise<void>[] = [];
  /** The first append that failed after `append` returned (reported by the next call). */
  private appendFailure: Error | undefined;
  readonly copies = true;
  private closed = false;
  /** The batch being filled by `take`, and how many bytes it holds. */
  private current: SharedArrayBuffer | undefined;
  private filled = 0;

  /** Hashes the `length` bytes already in the file behind `fd` (must be readable). */
  async prefix(fd: number, length: number): Promise<void> {
    if (length > 0) await this.request({ op: 'prefix', fd, length });
  }

  /**
   * Copies the chunk into the batch being filled at once, so the socket's buffer dies young
   * (a minor GC frees it; kept until the batch is full it would be promoted, and only a major
   * GC would free it: peak RSS). Hashed in the worker, with its batch.
   */
  take(chunk: Buffer): void {
    const need = this.filled + chunk.length;
    if (this.current === undefined || this.current.byteLength < need) {
      const bigger = this.buffer(need);
      if (this.current !== undefined) {
        new Uint8Array(bigger).set(new Uint8Array(this.current, 0, this.filled));
        this.release(this.current);
      }
      this.current = bigger;
    }
    new Uint8Array(this.current).set(chunk, this.filled);
    this.filled = need;
  }

  /** Hands the first `total` bytes taken (`buffers` is empty: `take` kept them) to the worker. */
  async append(
    handle: FileHandle,
    _buffers: readonly Uint8Array[],
    total: number,
    written: () => void,
  ): Promise<void> {
    this.rethrow();
    const buffer = this.current;
    if (buffer === undefined || total > this.filled) {
      throw new UpdateError('IO', `append of ${total} bytes, ${this.filled} taken`);
    }
    // Bytes taken after this batch was cut (while its .meta was written) start the next one.
    const rest = this.filled - total;
    this.current = undefined;
    this.filled = 0;
    if (rest > 0) this.take(Buffer.from(buffer, total, rest));
    const done = this.request({ op: 'append', fd: handle.fd, buffer, length: total }).then(
      () => {
        this.release(buffer);
        written();
      },
      (error: unknown) => {
        this.release(buffer);
        this.appendFailure ??= error instanceof Error ? error : new UpdateError('IO', 'append');
      },
    );
    this.queued.push(done);
    while (this.queued.length > MAX_QUEUED) await this.queued.shift();
    this.rethrow();
  }

  async reset(): Promise<void> {
    this.filled = 0;
    await this.request({ op: 'reset' });
    await this.drain();
    this.appendFailure = undefined;
  }

  async digest(): Promise<string> {
    const reply = await this.request({ op: 'digest' });
    await this.drain();
    this.rethrow();
    return reply.digest ?? '';
  }

  /** Lets the queued appends finish, then leaves the worker (the last one stops it). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.current = undefined;
    this.filled = 0;
    try {
      await this.drain();
      await this.lease.request({ id: this.lease.id, op: 'end' }).catch(() => undefined);
    } finally {
      await this.lease.release();
    }
  }

  private async drain(): Promise<void> {
    while (this.queued.length > 0) await this.queued.shift();
  }

  /** A free batch buffer of at least `bytes`. */
  private buffer(bytes: number): SharedArrayBuffer {
    const spare = this.spare.pop();
    if (spare !== undefined && spare.byteLength >= bytes) return spare;
    return new SharedArrayBuffer(Math.max(bytes, BATCH_BYTES));
  }

  private release(buffer: SharedArrayBuffer): void {
    this.spare.push(buffer);
  }

  private rethrow(): void {
    if (this.appendFailure !== undefined) throw this.appendFailure;
  }

  private request(op: DistributiveOmit<WorkerRequest, 'id'>): Promise<OkReply> {
    if (this.closed) return Promise.reject(new UpdateError('IO', 'partial file closed'));
    return this.lease.request({ ...op, id: this.lease.id });
  }
}
