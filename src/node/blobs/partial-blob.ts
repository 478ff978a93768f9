/**
 * A download in progress: `partial/<sha256>.part` hashed as it grows, with its HTTP validator
 * in `<sha256>.meta`. Re-opening after a crash or restart re-hashes the bytes already there
 * (they are not trusted until the whole file matches the signed digest); a partial longer
 * than the signed size is discarded. Writes are coalesced into 256 KiB appends, and what is
 * buffered is also appended once the bytes pause for IDLE_FLUSH_MS, so a transfer that hangs
 * and is then killed loses nothing it received (it is not fetched again on resume).
 *
 * Opening and resuming is partial-open.ts; the whole-in-memory small-artifact write is
 * whole-blob.ts; the validator file is partial-meta.ts.
 *
 * Durability, decided per step (docs/UPDATER.md §3, Durability): the file is created at its
 * first append, and an artifact that arrives whole before one (up to FLUSH_BYTES) is checked
 * in memory and written once, read-only, straight to its final bytes: no .meta, no append. The
 * one fsync per blob is of its data, before the rename into blobs/ (a blob named there is
 * intact after a power cut); the rename itself is made durable by one fsync of blobs/ per
 * batch, before the commit journal (`onPromoted`). Partial bytes and .meta are never trusted
 * (the digest decides), so they are written without fsync (early-writeback.ts only starts a
 * large blob's data syncs early).
 */
import { constants } from 'node:fs';
import { rm, type FileHandle } from 'node:fs/promises';
import { UpdateError } from '#core/errors.js';
import type { StepHook } from '#core/install/index.js';
import type { PartialBlob, TimerHandle, Timers } from '#core/ports.js';
import type { AppendSink } from '../workers/index.js';
import { promoteSealed, sealBlob } from './blob-facts.js';
import { EarlyWriteback, WRITEBACK_EVERY_BYTES } from '../fs/index.js';
import { systemTimers } from '../node-ports.js';
import { metaPathOf, writeValidator } from './partial-meta.js';
import type { OpenedPartial, PartialBlobOptions, PartialPaths } from './partial-types.js';
import { openNoFollow } from '../fs/index.js';
import { promoteWholeBuffers, type SealRunner } from './whole-blob.js';

/** Bytes buffered before an append; also the most a kill -9 can lose. */
export const FLUSH_BYTES = 256 * 1024;

/**
 * A pause in the bytes of at least this long (and at most twice) appends what is buffered (a
 * hang, then maybe a kill).
 */
export const IDLE_FLUSH_MS = 100;

const APPEND_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_APPEND;

export class FilePartialBlob implements PartialBlob {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private closed = false;
  private idle: TimerHandle | undefined;
  /** Writes since the idle timer was armed: one timer per pause window, not one per chunk. */
  private writesSinceArm = 0;
  /** Appends run one after another (an idle flush may overlap a write's flush). */
  private chain: Promise<void> = Promise.resolve();
  /** An idle flush that failed: reported by the next call. */
  private failure: Error | undefined;
  /** The append `write` started last and has not waited for (read-while-write). */
  private writing: Promise<void> = Promise.resolve();

  private readonly paths: PartialPaths;
  private readonly partPath: string;
  private readonly sha256: string;
  private readonly size: number;
  private handle: FileHandle | undefined;
  /** Data syncs behind the appends of a partial larger than one interval (early-writeback.ts). */
  private readonly writeback: EarlyWriteback | undefined;
  /** Hashes and appends the batches (on this thread, or a worker for large artifacts). */
  private readonly sink: AppendSink;
  /** Bytes coalesced per append: FLUSH_BYTES, or OFFLOAD_FLUSH_BYTES with a worker sink. */
  private readonly flushBytes: number;
  public offset: number;
  public validator: string | undefined;
  /** The validator in the .meta file on disk (undefined: no .meta file). */
  private metaOnDisk: string | undefined;
  private readonly onStep: StepHook | undefined;
  private readonly onWritten: ((bytes: number) => void) | undefined;
  private readonly onPromoted: (() => void) | undefined;
  private readonly timers: Timers;
  private readonly seal: SealRunner | undefined;

  /** `options` apart from `o`: a spread of both into one object cost ~5 KB of garbage a call. */
  constructor(o: OpenedPartial, options: PartialBlobOptions = {}) {
    this.paths = o.paths;
    this.partPath = o.partPath;
    this.sha256 = o.sha256;
    this.size = o.size;
    this.handle = o.handle;
    this.sink = o.sink;
    this.flushBytes = o.flushBytes ?? FLUSH_BYTES;
    this.offset = o.offset;
    this.validator = o.validator;
    this.metaOnDisk = o.validator;
    this.onStep = options.onStep;
    this.onWritten = options.onWritten;
    this.onPromoted = options.onPromoted;
    this.timers = options.timers ?? systemTimers;
    this.seal = options.seal;
    const every = options.writebackEveryBytes ?? WRITEBACK_EVERY_BYTES;
    if (o.size > every) {
      this.writeback = new EarlyWriteback(() => (this.handle as FileHandle).datasync(), every);
    }
  }

  /** Recorded now, written to .meta with the first bytes that reach the disk (`append`). */
  setValidator(validator: string | undefined): Promise<void> {
    this.validator = validator;
    return Promise.resolve();
  }

  /** The validator of the bytes about to be appended, to .meta (undefined: none there). */
  private async writeMeta(validator: string | undefined): Promise<void> {
    if (validator === this.metaOnDisk) return;
    await writeValidator(metaPathOf(this.paths.partialDir, this.sha256), validator);
    this.metaOnDisk = validator;
  }

  async write(chunk: Uint8Array): Promise<void> {
    this.rethrow();
    if (this.offset + chunk.length > this.size) {
      throw new UpdateError('SIZE_MISMATCH', `more bytes than the signed ${this.size}`);
    }
    const buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    this.sink.take(buffer);
    if (!this.sink.copies) this.pending.push(buffer);
    this.pendingBytes += buffer.length;
    this.offset += buffer.length;
    this.writesSinceArm++;
    if (this.pendingBytes >= this.flushBytes) await this.flushBehind();
    // Every signed byte is in: `complete` comes next, and no pause can lose bytes still to come.
    // So an artifact that arrives whole (most small ones, in one chunk) arms no timer at all.
    else if (this.idle === undefined && this.offset < this.size) this.arm();
  }

  /**
   * Starts appending the full buffer and waits only for the append before it: the next
   * FLUSH_BYTES are read from the socket (and hashed) while this one is written, and at most
   * two buffers are held (one being written, one queued behind it).
   */
  private async flushBehind(): Promise<void> {
    const before = this.writing;
    const run = this.flush();
    this.writing = run;
    run.catch((error: unknown) => {
      this.failure ??= error instanceof Error ? error : new UpdateError('IO', 'append failed');
    });
    // A copying sink queues (and bounds) the batches itself: wait until it took this one.
    await (this.sink.copies ? run : before);
    this.rethrow();
  }

  private arm(): void {
    this.writesSinceArm = 0;
    this.idle = this.timers.setTimeout(() => this.onIdle(), IDLE_FLUSH_MS);
  }

  /** Fires IDLE_FLUSH_MS after arming; flushes only if no write came in that window. */
  private onIdle(): void {
    this.idle = undefined;
    if (this.closed || this.pendingBytes === 0) return;
    if (this.writesSinceArm > 0) {
      this.arm();
      return;
    }
    this.flush().catch((error: unknown) => {
      this.failure ??=
        error instanceof Error ? error : new UpdateError('IO', 'buffered append failed');
    });
  }

  private disarm(): void {
    if (this.idle !== undefined) this.timers.clearTimeout(this.idle);
    this.idle = undefined;
  }

  private rethrow(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  private flush(): Promise<void> {
    const run = this.chain.then(() => this.append());
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async append(): Promise<void> {
    if (this.pendingBytes === 0) return;
    const buffers = this.pending;
    const total = this.pendingBytes;
    this.pending = [];
    this.pendingBytes = 0;
    await this.writeMeta(this.validator);
    // Created at the first append when no partial was found at open; never through a link.
    const handle = (this.handle ??= await openNoFollow(this.partPath, APPEND_FLAGS, 0o644));
    // Told once the bytes are in the file (a worker sink returns as soon as it took them).
    await this.sink.append(handle, buffers, total, () => {
      this.onStep?.('partial-written');
      this.onWritten?.(total);
      this.writeback?.wrote(total);
    });
  }

  async reset(): Promise<void> {
    this.disarm();
    this.pending = [];
    this.pendingBytes = 0;
    await this.chain; // no append may land after the truncate
    await this.sink.reset(); // after the appends the sink still holds
    this.failure = undefined;
    await this.handle?.truncate(0);
    this.offset = 0;
    this.validator = undefined;
    await this.writeMeta(this.validator);
  }

  async complete(): Promise<void> {
    this.disarm();
    await this.chain; // an append `write` did not wait for (flushBehind)
    this.rethrow();
    // Nothing appended yet: the whole artifact is in memory, checked before a byte is written.
    const whole = this.handle === undefined;
    if (!whole) await this.flush();
    this.rethrow();
    if (this.offset !== this.size) {
      await this.discard();
      throw new UpdateError('SIZE_MISMATCH', `got ${this.offset} bytes, signed ${this.size}`);
    }
    // After every append: the sink hashed exactly the bytes of the file.
    const digest = await this.sink.digest();
    if (digest !== this.sha256) {
      await this.discard();
      throw new UpdateError('HASH_MISMATCH', `SHA-256 ${digest} is not the signed ${this.sha256}`);
    }
    if (whole) {
      await this.promoteWhole();
      return;
    }
    const handle = this.handle as FileHandle;
    try {
      // Durable before the name says "verified blob"; a failed write-back drops the file.
      await this.writeback?.settle();
      // Blobs are read-only (installed files are hard links to them) and carry a sentinel
      // mtime; the facts recorded at promotion (blob-facts.ts) tell a later write even if it
      // resets the mtime. Sealed through the handle: no path is followed.
      await sealBlob(handle);
      await handle.sync();
    } catch (error) {
      await this.discard();
      throw error;
    }
    try {
      // Promoted while still open, so no file swapped in can take its inode.
      await promoteSealed(this.partPath, this.paths.blobDir, this.sha256, handle);
    } finally {
      await this.close();
    }
    this.onPromoted?.();
    await this.writeMeta(undefined);
    this.onStep?.('blob-promoted');
  }

  /** The buffered, verified artifact, written once and promoted (whole-blob.ts). */
  private async promoteWhole(): Promise<void> {
    const buffers = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    this.closed = true;
    await this.sink.close();
    const promoted = (): void => {
      this.onPromoted?.();
      this.onStep?.('blob-promoted');
    };
    const { partPath, sha256, size, seal } = this;
    await promoteWholeBuffers(partPath, this.paths.blobDir, sha256, size, buffers, promoted, seal);
    this.onWritten?.(this.size);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.disarm();
    try {
      await this.flush();
    } finally {
      await this.sink.close();
      await this.writeback?.idle();
      await this.handle?.close();
    }
    if (this.writeback?.failed === true) await this.discard();
  }

  private async discard(): Promise<void> {
    // Refused bytes still buffered are dropped, never appended.
    this.pending = [];
    this.pendingBytes = 0;
    await this.close();
    if (this.handle !== undefined) await rm(this.partPath, { force: true });
    await this.writeMeta(undefined);
  }
}
