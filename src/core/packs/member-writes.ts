/**
 * The members of one pack answer being written to the store while the answer keeps streaming
 * (docs/UPDATER.md §11): a store write is a few file calls, and awaiting each before reading on
 * left the link idle behind the disk. At most `maxWrites` writes and `maxBytes` of their bytes
 * are in flight, so memory stays bounded; the first failure is thrown by the next `add` and by
 * `drain`.
 */
export class MemberWrites {
  private readonly pending = new Set<Promise<void>>();
  private bytes = 0;
  private failed = false;
  private failure: unknown;

  constructor(
    private readonly maxWrites: number,
    private readonly maxBytes: number,
  ) {}

  /** Starts `write` of `size` bytes; resolves once the window has room for the next one. */
  async add(size: number, write: () => Promise<void>): Promise<void> {
    this.throwIfFailed();
    this.bytes += size;
    const running: Promise<void> = write()
      .catch((error: unknown) => {
        if (this.failed) return;
        this.failed = true;
        this.failure = error;
      })
      .finally(() => {
        this.bytes -= size;
        this.pending.delete(running);
      });
    this.pending.add(running);
    while (
      this.pending.size > 0 &&
      (this.pending.size >= this.maxWrites || this.bytes >= this.maxBytes)
    ) {
      await Promise.race(this.pending);
    }
    this.throwIfFailed();
  }

  /** Waits for every write started; throws the first failure. */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.race(this.pending);
    this.throwIfFailed();
  }

  private throwIfFailed(): void {
    if (this.failed) throw this.failure;
  }
}
