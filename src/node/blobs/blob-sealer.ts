/**
 * How the small blobs of a pull are sealed behind the downloads (docs/UPDATER.md §3,
 * Durability): in syncfs batches (seal-batches.ts) where syncfs reports write-back errors
 * (fs-sync.ts), one `sync -f` per batch run by the pull's one shell (sync-coprocess.ts); else,
 * or once no `sync` could be started, one fsync per blob (seal-queue.ts). Decided once per
 * store (file-store.ts), which hands `runner` to each partial download and waits here before a
 * blob is looked up or a set committed.
 */
import { release } from 'node:os';
import type { StepHook } from '#core/install/index.js';
import type { Logger } from '#core/ports.js';
import { factsBookOf, loadedFactsBook } from './facts-book.js';
import { FsSync, syncfsReportsErrors, type CommandRunner } from '../fs/index.js';
import { SealBatches } from './seal-batches.js';
import { SealQueue } from './seal-queue.js';
import { SyncCoprocess } from '../fs/index.js';
import { sealAlone, type SealJob, type SealRunner } from './whole-blob.js';

export interface BlobSealerOptions {
  /** Called after each durable install step (crash tests): here `blobs-batch-synced`. */
  readonly onStep?: StepHook | undefined;
  /** The platform syncfs is judged for (default process.platform; injected in tests). */
  readonly platform?: NodeJS.Platform | undefined;
  /** The kernel release syncfs is judged by (default os.release(); injected in tests). */
  readonly kernelRelease?: string | undefined;
  /** Runs `sync -f` for a batch of small blobs (fs-sync.ts; injected in tests). */
  readonly syncRunner?: CommandRunner | undefined;
  /** Told when the store gives syncfs up for one fsync per small blob (default: silent). */
  readonly logger?: Logger | undefined;
}

/**
 * Small blobs whose fsync and rename may run at once behind the downloads: one open descriptor
 * each, and enough to keep the libuv pool's 4 threads busy while the sockets are read.
 */
const SEAL_WINDOW = 32;

/**
 * Small blobs per syncfs batch, and their bytes (docs/UPDATER.md §3, Durability). A sync is
 * run by the pull's one shell (sync-coprocess.ts: no fork of this process per batch), and 256
 * blobs a batch keep a large pull to few syncs (docs/UPDATER.md §10.3); each blob of an open batch
 * holds a descriptor, and at most two batches are open (one syncing, one filling): about 512,
 * well under the limit Node raises the soft limit to at start.
 */
export const SEAL_BATCH = {
  maxCount: 256,
  maxBytes: 16 * 1024 * 1024,
  // A batch of 32 or more closes once its first blob is 100 ms old (when none is syncing): the
  // last batch of a pull, synced and renamed after its last byte, then holds about the last
  // 100 ms of it instead of up to 16 MiB (1.3 s of a 100 Mbit/s link; docs/UPDATER.md §3,
  // Durability). 32: a few small blobs still share one sync.
  maxAgeMs: 100,
  minAgedCount: 32,
} as const;

export class BlobSealer {
  /** The fsync-and-rename tails of small blobs, run behind the downloads (seal-queue.ts). */
  private readonly seals = new SealQueue(SEAL_WINDOW);
  /**
   * The syncfs batches of small blobs (seal-batches.ts), where syncfs reports write-back errors
   * (fs-sync.ts); undefined elsewhere: each blob is fsynced by `seals`.
   */
  private readonly batches: SealBatches | undefined;
  private readonly fsSync: FsSync | undefined;
  /** The shell that runs each batch's `sync` (sync-coprocess.ts); ended after each pull. */
  private readonly syncShell: SyncCoprocess | undefined;

  constructor(
    private readonly blobDir: string,
    options: BlobSealerOptions,
  ) {
    const platform = options.platform ?? process.platform;
    if (syncfsReportsErrors(platform, options.kernelRelease ?? release())) {
      this.syncShell = options.syncRunner === undefined ? new SyncCoprocess() : undefined;
      const runner = options.syncRunner ?? this.syncShell?.run;
      const fsSync = new FsSync(blobDir, runner, undefined, (error) =>
        options.logger?.warn('sync -f of the blob directory failed: one fsync per small blob', {
          error: error instanceof Error ? error.message : String(error),
        }),
      );
      this.fsSync = fsSync;
      this.batches = new SealBatches(
        SEAL_BATCH,
        () => fsSync.sync(),
        () => options.onStep?.('blobs-batch-synced'),
      );
    }
  }

  /**
   * What a partial is handed to seal its blob; `relieve` promotes the open syncfs batch, which
   * closes its descriptors, when a create found none left (whole-blob.ts).
   */
  readonly runner: SealRunner = Object.assign((job: SealJob) => this.seal(job), {
    relieve: async (): Promise<void> => {
      await this.batches?.idle();
    },
  });

  /**
   * A small blob's durable tail: into a syncfs batch, or (no syncfs here, or no `sync` could
   * be started) one fsync of its own behind the downloads, as before batches.
   */
  private async seal(job: SealJob): Promise<void> {
    if (this.batches !== undefined && this.fsSync?.usable === true) {
      // The facts book, loaded at the first promotion, reads files: loaded before a batch holds
      // descriptors, so a promotion never needs one that the batch may have taken (relieve).
      if (loadedFactsBook(this.blobDir) === undefined) {
        try {
          await factsBookOf(this.blobDir);
        } catch (error) {
          job.abandon();
          throw error;
        }
      }
      return this.batches.add(job);
    }
    return this.seals.add(() => sealAlone(job));
  }

  /** Blobs handed over and not yet promoted (a lookup waits only when there are some). */
  get pending(): number {
    return (this.batches?.pending ?? 0) + this.seals.pending;
  }

  /** Waits for the blobs being promoted, so a lookup never sees one half done. */
  async idle(): Promise<void> {
    if ((this.batches?.pending ?? 0) > 0) await this.batches?.idle();
    if (this.seals.pending > 0) await this.seals.idle();
  }

  /** Every promotion handed over is finished (or failed); throws the first failure. */
  async settle(): Promise<void> {
    let first: { error: unknown } | undefined;
    for (const queue of [this.batches, this.seals]) {
      try {
        await queue?.settle();
      } catch (error) {
        first ??= { error };
      }
    }
    this.syncShell?.release();
    if (first !== undefined) throw first.error;
  }
}
