/**
 * The small-artifact path of partial-blob.ts (docs/UPDATER.md §3, Durability): an artifact
 * that arrived whole in memory, already checked against its signed digest, is written once as
 * a new read-only file with the sentinel mtime and promoted into blobs/, with no .meta and no
 * append. Kept apart because it shares nothing with the streaming appends but the hooks.
 *
 * Direct calls of a few microseconds each: at 10,000 small artifacts a thread-pool round trip
 * per call cost more than the calls; only the fsync (or the batch's syncfs) leaves the loop.
 */
import { closeSync, fsync, futimesSync, openSync, rmSync, writevSync } from 'node:fs';
import { promisify } from 'node:util';
import { UpdateError } from '../core/errors.js';
import { promoteSealedFd } from './blob-facts.js';
import { errno } from './fs-errors.js';
import { BLOB_MTIME_S } from './intact-blob.js';

const fsyncFd = promisify(fsync);

/**
 * The durable tail of one small blob's promotion, handed to a runner: inline (`sealAlone`),
 * behind the downloads one fsync each (seal-queue.ts), or in a batch with one syncfs
 * (seal-batches.ts). The runner calls exactly one of `promote` (after the data is durable) and
 * `abandon`; both release the descriptor.
 */
export interface SealJob {
  /** The blob's size. */
  readonly bytes: number;
  /** Makes this blob's data durable by itself (fsync of its descriptor). */
  fsync(): Promise<void>;
  /** Renames it into blobs/ with the arrival check, closes it, then reports it promoted. */
  promote(): Promise<void>;
  /** Closes it unpromoted: the sealed partial stays (re-hashed at its next open). */
  abandon(): void;
}

/**
 * Runs a job (the runner owns it: it always promotes or abandons it). A runner that holds
 * descriptors across jobs (syncfs batches, seal-batches.ts) also offers `relieve`: finish what
 * it holds, closing those descriptors, when a create finds none left.
 */
export interface SealRunner {
  (job: SealJob): Promise<void>;
  readonly relieve?: () => Promise<void>;
}

/** The process is out of descriptors (its own limit, or the system's). */
const OUT_OF_DESCRIPTORS = new Set(['EMFILE', 'ENFILE']);

/** One fsync, then the rename: the data is durable before the name (docs/UPDATER.md §3). */
export async function sealAlone(job: SealJob): Promise<void> {
  try {
    await job.fsync();
  } catch (error) {
    job.abandon();
    throw error;
  }
  await job.promote();
}

/** Creates the partial afresh, read-only; O_EXCL: never through a link planted at its name. */
function createPart(partPath: string): number {
  try {
    return openSync(partPath, 'wx', 0o444);
  } catch (error) {
    // A file left where no partial was found at open (exclusive create keeps the mode ours).
    if (errno(error) !== 'EEXIST') throw error;
    rmSync(partPath, { force: true });
    return openSync(partPath, 'wx', 0o444);
  }
}

/**
 * Writes `buffers` (`size` bytes, verified) at `partPath`, sealed, and hands the promotion to
 * `seal`, which makes the data durable before the rename to `sha256`; `promoted` is called
 * after the rename, before blobs/ is synced.
 */
export async function promoteWholeBuffers(
  partPath: string,
  blobDir: string,
  sha256: string,
  size: number,
  buffers: Buffer[],
  promoted: () => void,
  seal: SealRunner = sealAlone,
): Promise<void> {
  let fd: number;
  try {
    fd = createPart(partPath);
  } catch (error) {
    // Out of descriptors while a syncfs batch holds its blobs' (a soft limit of 1024 that the
    // process did not raise, docs/UPDATER.md §3 Durability): promote that batch, which closes
    // them, and try once more. Anything else, or a second failure, is the caller's IO.
    const code = errno(error);
    if (seal.relieve === undefined || code === undefined || !OUT_OF_DESCRIPTORS.has(code)) {
      throw error;
    }
    await seal.relieve();
    fd = createPart(partPath);
  }
  try {
    const written = writevSync(fd, buffers);
    if (written !== size) {
      throw new UpdateError('IO', `short write (${written} of ${size} bytes)`);
    }
    futimesSync(fd, BLOB_MTIME_S, BLOB_MTIME_S);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  await seal({
    bytes: size,
    fsync: () => fsyncFd(fd),
    promote: async () => {
      try {
        // Promoted while still open, so no file swapped in can take its inode.
        await promoteSealedFd(partPath, blobDir, sha256, fd);
      } finally {
        closeSync(fd);
      }
      promoted();
    },
    abandon: () => closeSync(fd),
  });
}
