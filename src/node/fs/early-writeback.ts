/**
 * Starts the disk writes of a large partial while it downloads (docs/UPDATER.md §3,
 * Durability; §8, Throughput of one large artifact). Why: a blob's data is made durable
 * (fsync) before its rename into blobs/, and the kernel starts writing dirty pages back only
 * once they are a tenth of memory or 30 s old, so the fsync of a 512 MiB blob wrote all 512 MiB
 * after its last byte arrived: 0.24 s of a 1.27 s pull on the bench machine, with the disk idle
 * while the network was the limit. Here a `fdatasync` runs on libuv's pool every
 * `WRITEBACK_EVERY_BYTES` appended (one at a time, never awaited by the appends), so the final
 * fsync finds only the tail still dirty.
 *
 * Nothing here replaces that fsync: it adds syncs, and a crash at any moment leaves what it left
 * before. A failed early sync is never dropped: Linux reports a write-back error to one fsync of
 * a file description and not to the next, so the first failure is kept, `settle` (before the
 * final fsync) throws it, and the owner removes the file (`failed`) rather than keep it for a
 * later run, which would re-hash it from the page cache and promote bytes the disk never took.
 */

/**
 * Bytes appended between two early syncs, on Linux; elsewhere none (Infinity): on macOS
 * libuv's fdatasync is F_FULLFSYNC, a flush of the drive's whole cache, and on Windows it is
 * FlushFileBuffers, and the final fsync alone is what every platform had before
 * (docs/UPDATER.md §10.3).
 */
export const WRITEBACK_EVERY_BYTES = process.platform === 'linux' ? 64 * 1024 * 1024 : Infinity;

export class EarlyWriteback {
  private since = 0;
  private running: Promise<void> | undefined;
  private failure: { error: unknown } | undefined;

  constructor(
    /** Makes the file's data so far durable (a FileHandle's `datasync`). */
    private readonly sync: () => Promise<void>,
    private readonly everyBytes: number = WRITEBACK_EVERY_BYTES,
  ) {}

  /** `bytes` more are in the file: start a sync if enough came since the last and none runs. */
  wrote(bytes: number): void {
    this.since += bytes;
    if (this.since < this.everyBytes || this.running !== undefined) return;
    this.since = 0;
    this.running = this.sync()
      .catch((error: unknown) => {
        this.failure ??= { error };
      })
      .finally(() => {
        this.running = undefined;
      });
  }

  /** An early sync failed: its bytes may never reach the disk, whatever a later fsync says. */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** Waits for the sync in progress (none may outlive the descriptor); throws nothing. */
  async idle(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  /** `idle`, then throws the first failure of an early sync, if one failed. */
  async settle(): Promise<void> {
    await this.idle();
    if (this.failure !== undefined) throw this.failure.error;
  }
}
