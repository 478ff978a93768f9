/**
 * Small blobs made durable a batch at a time: one syncfs of the blob directory's file system
 * (fs-sync.ts) instead of one fsync per blob, then the renames (docs/UPDATER.md §3,
 * Durability). Per batch, in this order: every blob is written and sealed (before `add`), the
 * batch closes (by count, by bytes, by age, or at `idle`/`settle`), one sync, the
 * `blobs-batch-synced` step, then each blob is renamed into blobs/ with its arrival check, in
 * the order it came. So a name in blobs/ is still always an intact blob after a power cut.
 *
 * Each blob keeps its descriptor open until its rename (the arrival check compares inodes), so
 * the descriptors held are bounded: a batch closes at `maxCount` blobs, and at most one batch
 * syncs while the next one fills (an `add` that fills it waits for the one before). The sync
 * runs in a child process, so the downloads go on meanwhile.
 *
 * Where no syncfs can be run, or the store's sync failed (fs-sync.ts answers false then), each
 * blob of the batch is fsynced instead. A failure to make the batch durable (a sync that
 * rejects, any of those fsyncs) fails it closed: none of its blobs is promoted, each is closed
 * and its sealed partial stays (re-hashed at its next open), and the failure is thrown by the
 * next `add` or by `settle`.
 */
import type { SealJob } from './whole-blob.js';

export interface SealBatchLimits {
  /** Blobs per batch: each holds a descriptor until its rename. */
  readonly maxCount: number;
  /** Bytes per batch: what a sync writes back at most for it. */
  readonly maxBytes: number;
  /**
   * A batch of at least `minAgedCount` blobs whose first came this long ago closes at the next
   * `add` when no batch is syncing (it never waits for one): so the batch still open when the
   * pull's last byte arrives, whose sync and renames come after it, holds about this long of
   * the pull rather than up to `maxBytes` of it (docs/UPDATER.md §3, Durability). Unset: by
   * count and bytes only.
   */
  readonly maxAgeMs?: number;
  /** The fewest blobs a batch closed by age holds (a few small blobs stay one batch). */
  readonly minAgedCount?: number;
}

/** Syncs the batch's file system: false when none can be (then each blob is fsynced). */
export type BatchSync = () => Promise<boolean>;

export class SealBatches {
  private open: SealJob[] = [];
  private openBytes = 0;
  /** When the open batch's first blob came (`now`). */
  private openedAt = 0;
  /** The batch being synced and promoted (at most one). */
  private inFlight: Promise<void> | undefined;
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly limits: SealBatchLimits,
    private readonly sync: BatchSync,
    /** Told after a batch's data is durable, before its first rename (crash tests). */
    private readonly onSynced?: () => void,
    /** Milliseconds on a monotonic clock (tests), for `maxAgeMs`. */
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * Takes `job` into the open batch (always: the batch owns it now). Closes the batch once it
   * is full, first waiting for the batch before it. Throws the first failure of an earlier
   * batch, so a pull stops early.
   */
  async add(job: SealJob): Promise<void> {
    if (this.open.length === 0 && this.limits.maxAgeMs !== undefined) this.openedAt = this.now();
    this.open.push(job);
    this.openBytes += job.bytes;
    while (this.full()) {
      if (this.inFlight === undefined) this.start();
      else await this.inFlight;
    }
    if (this.inFlight === undefined && this.aged()) this.start();
    if (this.failure !== undefined) throw this.failure.error;
  }

  private full(): boolean {
    return this.open.length >= this.limits.maxCount || this.openBytes >= this.limits.maxBytes;
  }

  private aged(): boolean {
    const { maxAgeMs, minAgedCount = 1 } = this.limits;
    return (
      maxAgeMs !== undefined &&
      this.open.length >= minAgedCount &&
      this.now() - this.openedAt >= maxAgeMs
    );
  }

  /** Closes the open batch and starts syncing it (none may be in flight). */
  private start(): void {
    const batch = this.open;
    this.open = [];
    this.openBytes = 0;
    const run = this.flush(batch).finally(() => {
      this.inFlight = undefined;
    });
    this.inFlight = run;
  }

  /** Never rejects: a failure is kept for `add` and `settle`. */
  private async flush(batch: readonly SealJob[]): Promise<void> {
    try {
      if (!(await this.sync())) {
        // Each settled before any is closed: no descriptor is closed under a running fsync.
        const fsyncs = await Promise.allSettled(batch.map((job) => job.fsync()));
        const refused = fsyncs.find((r) => r.status === 'rejected');
        if (refused !== undefined) throw refused.reason;
      }
    } catch (error) {
      // Not durable (or not known to be): nothing of this batch gets a name in blobs/.
      for (const job of batch) job.abandon();
      this.failure ??= { error };
      return;
    }
    this.onSynced?.();
    for (const job of batch) {
      try {
        await job.promote();
      } catch (error) {
        this.failure ??= { error };
      }
    }
  }

  /** Blobs taken and not yet promoted or abandoned (an open or an in-flight batch). */
  get pending(): number {
    return this.open.length + (this.inFlight === undefined ? 0 : 1);
  }

  /** Closes the open batch and waits until every batch is done, throwing nothing. */
  async idle(): Promise<void> {
    while (this.open.length > 0 || this.inFlight !== undefined) {
      if (this.inFlight === undefined) this.start();
      else await this.inFlight;
    }
  }

  /** `idle`, then throws (and forgets) the first failure among the batches. */
  async settle(): Promise<void> {
    await this.idle();
    const failure = this.failure;
    this.failure = undefined;
    if (failure !== undefined) throw failure.error;
  }
}
