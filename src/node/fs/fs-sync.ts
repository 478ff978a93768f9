/**
 * One syncfs(2) of the file system that holds the blobs, for a batch of small blobs instead of
 * one fsync each (docs/UPDATER.md §3, Durability). Node has no syncfs, so it is `sync -f DIR`
 * (coreutils ≥ 8.24), run by absolute path (never a PATH lookup) in a child process with a
 * timeout. Used only where syncfs reports write-back errors: Linux ≥ 5.8 (before "vfs: track
 * per-sb writeback errors and report them to syncfs", syncfs returned 0 after an I/O error, so
 * a batch could be promoted over lost data). Elsewhere, where no `sync` can be started, and
 * once a sync failed (an error reported, a timeout, a `sync` without `-f`), the caller fsyncs
 * each blob instead, which fails closed by itself: that choice is made once per store.
 */
import { errno } from './fs-errors.js';
import { childProcess } from '../lazy-builtin.js';

/** Where `sync` is looked for, in order. */
export const SYNC_PATHS = ['/usr/bin/sync', '/bin/sync'] as const;

/**
 * The longest a batch's sync may take before the store gives up on syncfs (its blobs are then
 * fsynced one by one). A syncfs also writes back what other processes left dirty on that file
 * system, so this is generous.
 */
export const SYNC_TIMEOUT_MS = 120_000;

/**
 * Runs `file args` and resolves when it exits 0. Rejects with the spawn error (errno `code`
 * such as ENOENT), or with an error whose `code` is the exit status (or whose `killed` is set
 * after the timeout).
 */
export type CommandRunner = (
  file: string,
  args: readonly string[],
  timeoutMs: number,
) => Promise<void>;

/** `execFile` without a shell, loaded at the first batch (lazy-builtin.ts). */
export const execFileRunner: CommandRunner = (file, args, timeoutMs) =>
  new Promise((resolve, reject) => {
    // No shell; `sync` prints nothing, so nothing is buffered.
    childProcess().execFile(file, args, { timeout: timeoutMs, windowsHide: true }, (error) => {
      if (error === null) resolve();
      else reject(error instanceof Error ? error : new Error(`${file} failed`));
    });
  });

/** `[major, minor]` of a kernel release string such as `6.8.0-45-generic`; else undefined. */
export function kernelVersion(release: string): readonly [number, number] | undefined {
  const match = /^(\d+)\.(\d+)/.exec(release);
  if (match === null) return undefined;
  return [Number(match[1]), Number(match[2])];
}

/** Whether syncfs(2) on this kernel reports a write-back error (Linux ≥ 5.8). */
export function syncfsReportsErrors(platform: NodeJS.Platform, release: string): boolean {
  if (platform !== 'linux') return false;
  const version = kernelVersion(release);
  if (version === undefined) return false;
  const [major, minor] = version;
  return major > 5 || (major === 5 && minor >= 8);
}

/** The spawn itself failed: no such `sync`, or not executable. */
function notStarted(error: unknown): boolean {
  const code = errno(error);
  return code === 'ENOENT' || code === 'EACCES';
}

/**
 * syncfs of one directory's file system: `sync()` resolves true when the file system was
 * synced, false when this store has no usable syncfs (then the caller fsyncs each file, now and
 * from then on). It never throws: a failed sync says nothing about the batch's own files that
 * their fsyncs do not say better. A syncfs error may be another file's write-back on that file
 * system, and a `sync` too old for `-f` exits 1 like a real error; the fsync of each of our
 * descriptors, all open while the data was written back, reports exactly an error in our
 * files (per-file write-back errors, Linux 4.13 on), so the batch stays fail-closed
 * (docs/UPDATER.md §3, Durability) and no store is bricked by a `sync` it cannot use.
 */
export class FsSync {
  /** The `sync` that started last time; undefined before the first; null: none can. */
  private path: string | null | undefined;

  constructor(
    private readonly dir: string,
    private readonly run: CommandRunner = execFileRunner,
    private readonly candidates: readonly string[] = SYNC_PATHS,
    /** Told once, with the error, when a `sync` that started failed and syncfs is given up. */
    private readonly onGiveUp: (error: unknown) => void = () => undefined,
  ) {}

  /** False once no `sync` could be started (callers then keep one fsync per file). */
  get usable(): boolean {
    return this.path !== null;
  }

  async sync(): Promise<boolean> {
    const tries = this.path === undefined ? this.candidates : this.path === null ? [] : [this.path];
    for (const file of tries) {
      try {
        await this.run(file, ['-f', this.dir], SYNC_TIMEOUT_MS);
        this.path = file;
        return true;
      } catch (error) {
        if (this.path === undefined && notStarted(error)) continue;
        // An error reported, no answer in time, or no `-f`: the caller fsyncs each file.
        this.onGiveUp(error);
        break;
      }
    }
    this.path = null;
    return false;
  }
}
