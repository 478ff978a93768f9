/**
 * The shapes shared by the two sides of a partial download: opening and resuming it
 * (partial-open.ts) and writing and promoting it (partial-blob.ts). Their own file so neither side
 * imports the other's module for a type.
 */
import type { FileHandle } from 'node:fs/promises';
import type { StepHook } from '#core/install/index.js';
import type { Timers } from '#core/ports.js';
import type { AppendSink } from '../workers/index.js';
import type { SealRunner } from './whole-blob.js';

export interface PartialPaths {
  readonly partialDir: string;
  readonly blobDir: string;
}

export interface PartialBlobOptions {
  /** Called after each durable step (crash tests). */
  readonly onStep?: StepHook | undefined;
  /** Told the bytes of each append (read-buffer-gc.ts paces a GC on it). */
  readonly onWritten?: ((bytes: number) => void) | undefined;
  /** Drives the idle flush (default: the system timers). */
  readonly timers?: Timers | undefined;
  /**
   * Told after a blob was renamed into the blob directory, before that directory is synced:
   * the owner syncs it once per batch (FileStore, before the commit journal).
   */
  readonly onPromoted?: (() => void) | undefined;
  /**
   * Runs the durable tail of a whole small blob (default: fsync then rename, awaited);
   * FileStore runs it behind the downloads, in a syncfs batch (seal-batches.ts) or one fsync
   * each (seal-queue.ts), and settles them before a commit.
   */
  readonly seal?: SealRunner | undefined;
  /**
   * False when the caller knows there is no partial file for this digest (FileStore lists the
   * directory once): the stat is skipped. A wrong `false` only loses a resume, never a check.
   */
  readonly mayExist?: boolean | undefined;
  /**
   * Signed sizes from which the hashing and appending run in a worker thread (hash-append.ts);
   * default OFFLOAD_MIN_BYTES. Infinity keeps every artifact on this thread.
   */
  readonly offloadMinBytes?: number | undefined;
  /** Bytes appended between two early data syncs (early-writeback.ts; tests set it small). */
  readonly writebackEveryBytes?: number | undefined;
}

/** A partial file as opened: its open handle and the hash of the bytes already in it. */
export interface OpenedPartial {
  readonly paths: PartialPaths;
  /** `<partialDir>/<sha256>.part` (a digest under the store's own directory path). */
  readonly partPath: string;
  readonly sha256: string;
  readonly size: number;
  /** Open when the file has bytes (a resume); else created at the first append. */
  readonly handle: FileHandle | undefined;
  /** Has hashed the bytes already in the file. */
  readonly sink: AppendSink;
  /** Bytes coalesced per append (default FLUSH_BYTES). */
  readonly flushBytes?: number | undefined;
  readonly offset: number;
  readonly validator: string | undefined;
}
