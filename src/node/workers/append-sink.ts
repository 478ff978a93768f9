/**
 * Where the bytes of a partial file go once received: hashed (SHA-256, in file order) and
 * appended. partial-blob.ts coalesces the received chunks and hands each batch here, so the
 * hashing and the writing can run on the main thread (small artifacts: no thread to start) or
 * in a worker (hash-append.ts, large ones: docs/UPDATER.md §3, Throughput of one large
 * artifact). A further consumer of the same bytes (e.g. a content-defined chunker) would be
 * one more sink behind this interface, fed the same batches.
 */
import { createHash, type Hash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { writeAll } from '../fs/index.js';

export interface AppendSink {
  /**
   * True: `take` copies each chunk (the caller keeps no reference, so the chunk dies young and
   * hands `append` no buffers), and `append` returns once the batch is queued in the sink,
   * which bounds its own queue. False: the caller keeps the chunks and hands them to `append`.
   */
  readonly copies: boolean;
  /** Every received chunk, in order, as it arrives. */
  take(chunk: Buffer): void;
  /**
   * Hashes (if `take` did not) and appends one batch of `total` bytes after the one before,
   * then calls `written`. Resolves when the sink can take the next batch: after the write
   * (this thread), or as soon as few enough batches are queued (a worker). An append that
   * failed after its call resolved fails the next call, `digest` or `reset`.
   */
  append(
    handle: FileHandle,
    buffers: readonly Buffer[],
    total: number,
    written: () => void,
  ): Promise<void>;
  /** Forgets everything hashed, once every append taken is written (the file is truncated). */
  reset(): Promise<void>;
  /** SHA-256 (hex) of every byte since the start or the last reset, once all are written. */
  digest(): Promise<string>;
  /** Waits for the appends taken, then releases what the sink holds (a thread). */
  close(): Promise<void>;
}

/** Hashes each chunk as it arrives and appends with one writev per batch, on this thread. */
export class InThreadSink implements AppendSink {
  readonly copies = false;

  constructor(private hash: Hash) {}

  take(chunk: Buffer): void {
    this.hash.update(chunk);
  }

  async append(
    handle: FileHandle,
    buffers: readonly Buffer[],
    total: number,
    written: () => void,
  ): Promise<void> {
    // writev: one syscall for the batch, and no concatenated copy (keeps peak RSS flat). A full
    // disk fails with ENOSPC (write-all.ts); the bytes already on disk are re-hashed on the next
    // open, so failing here loses nothing verified.
    await writeAll(async (rest) => (await handle.writev([...rest])).bytesWritten, buffers, total);
    written();
  }

  reset(): Promise<void> {
    this.hash = createHash('sha256');
    return Promise.resolve();
  }

  digest(): Promise<string> {
    return Promise.resolve(this.hash.digest('hex'));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
