/**
 * The small-artifact path of partial-blob.ts (docs/UPDATER.md §3, Durability): an artifact
 * that arrived whole in memory, already checked against its signed digest, is written once as
 * a new read-only file with the sentinel mtime and promoted into blobs/, with no .meta and no
 * append. Kept apart because it shares nothing with the streaming appends but the hooks.
 *
 * Direct calls of a few microseconds each: at 10,000 small artifacts a thread-pool round trip
 * per call cost more than the calls; only the fsync (or the batch's syncfs) leaves the loop,
 * and the create of a blob of `CREATE_OFF_LOOP_BYTES` or more (docs/UPDATER.md §8, item (9)).
 */
import { closeSync, fsync, futimesSync, open, openSync, rmSync, writevSync } from 'node:fs';
import { promisify } from 'node:util';
import { promoteSealedFd } from './blob-facts.js';
import { errno } from '../fs/index.js';
import { BLOB_MTIME_S } from './intact-blob.js';
import { writeAllSync } from '../fs/index.js';

const fsyncFd = promisify(fsync);
const openFile = promisify(open);

/**
 * From this size on, a blob's exclusive create runs on libuv's pool instead of the main
 * thread. A create's cost is the file system's: small on most, but it can wait on the disk
 * (docs/UPDATER.md §10.2), and the main thread is what the pull is short of. At
 * this size the round trip is small beside the blob's own receive, hash and write; below it,
 * the round trip and the lost batching of the next requests cost more than they save
 * (docs/UPDATER.md §8, item (9)).
 */
export const CREATE_OFF_LOOP_BYTES = 32 * 1024;

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

/**
 * Creates the partial afresh, read-only; O_EXCL: never through a link planted at its name. A
 * file left where no partial was found at open is removed and the create tried once more
 * (exclusive create keeps the mode ours). On libuv's pool from `CREATE_OFF_LOOP_BYTES` on.
 */
async function createPart(partPath: string, size: number): Promise<number> {
  const create = (): number | Promise<number> =>
    size < CREATE_OFF_LOOP_BYTES
      ? openSync(partPath, 'wx', 0o444)
      : openFile(partPath, 'wx', 0o444);
  try {
    return await create();
  } catch (error) {
    if (errno(error) !== 'EEXIST') throw error;
    rmSync(partPath, { force: true });
    return await create();
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
    fd = await createPart(partPath, size);
  } catch (error) {
    // Out of descriptors while a syncfs batch holds its blobs' (a soft limit of 1024 that the
    // process did not raise, docs/UPDATER.md §3 Durability): promote that batch, which closes
    // them, and try once more. Anything else, or a second failure, is the caller's IO.
    const code = errno(error);
    if (seal.relieve === undefined || code === undefined || !OUT_OF_DESCRIPTORS.has(code)) {
      throw error;
    }
    await seal.relieve();
    fd = await createPart(partPath, size);
  }
  try {
    // A full disk fails here with ENOSPC, not a bare short write (write-all.ts).
    writeAllSync((rest) => writevSync(fd, rest), buffers, size);
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
