/**
 * The tail of a small blob's promotion (fsync of its data, rename into blobs/, the arrival
 * check, close) run behind the downloads instead of in their way (docs/UPDATER.md §3,
 * Durability). Each job keeps its own order (data durable, then the name), so what a kill or a
 * power cut can leave is what it could leave before: a complete, sealed `.part` that the next
 * open re-hashes. At most `window` jobs run at once (each holds one file descriptor, not its
 * bytes), their fsyncs side by side on the libuv pool, where a file system commits them
 * together. `settle` is the batch boundary: the pull waits for it before it returns, so every
 * blob it reports is promoted (and the commit's one fsync of blobs/ follows).
 */
export class SealQueue {
  private readonly running = new Set<Promise<void>>();
  /** `add` calls waiting for room, woken one per finished job (first come, first served). */
  private readonly waiting: (() => void)[] = [];
  private failure: { error: unknown } | undefined;

  constructor(private readonly window: number) {}

  /**
   * Starts `job` once fewer than `window` run, and always starts it (the job owns resources
   * it must release). Throws the first failure of an earlier job, so a pull stops early.
   */
  async add(job: () => Promise<void>): Promise<void> {
    // Not Promise.race over the running jobs: with the queue full (fsync-bound), that added a
    // reaction to every running job per call, tens of thousands in a pull of 10,000 blobs.
    while (this.running.size >= this.window) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    const run: Promise<void> = job().then(
      () => this.done(run),
      (error: unknown) => {
        this.failure ??= { error };
        this.done(run);
      },
    );
    this.running.add(run);
    if (this.failure !== undefined) throw this.failure.error;
  }

  private done(run: Promise<void>): void {
    this.running.delete(run);
    this.waiting.shift()?.();
  }

  /** Jobs started and not finished. */
  get pending(): number {
    return this.running.size;
  }

  /** Waits for every job, throwing nothing (a failure stays for `add` or `settle`). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
  }

  /** Waits for every job; throws (then forgets) the first failure among them. */
  async settle(): Promise<void> {
    await this.idle();
    const failure = this.failure;
    this.failure = undefined;
    if (failure !== undefined) throw failure.error;
  }
}
