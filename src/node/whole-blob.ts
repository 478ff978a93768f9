/**
 * The small-artifact path of partial-blob.ts (docs/UPDATER.md §3, Durability): an artifact
 * that arrived whole in memory, already checked against its signed digest, is written once as
 * a new read-only file with the sentinel mtime and promoted into blobs/, with no .meta and no
 * append. Kept apart because it shares nothing with the streaming appends but the hooks.
 *
 * Direct calls of a few microseconds each: at 10,000 small artifacts a thread-pool round trip
 * per call cost more than the calls; only the fsync leaves the loop.
 */
import { closeSync, fsync, futimesSync, openSync, rmSync, writevSync } from 'node:fs';
import { promisify } from 'node:util';
import { UpdateError } from '../core/errors.js';
import { promoteSealedFd } from './blob-facts.js';
import { errno } from './fs-errors.js';
import { BLOB_MTIME_S } from './intact-blob.js';

const fsyncFd = promisify(fsync);

/**
 * Runs the durable tail of a promotion (fsync, rename, close): inline by default, or behind the
 * downloads (seal-queue.ts). Always runs the job, which releases the descriptor.
 */
export type SealRunner = (job: () => Promise<void>) => Promise<void>;

const inline: SealRunner = (job) => job();

/**
 * Writes `buffers` (`size` bytes, verified) at `partPath` and promotes them to `sha256`, then
 * calls `promoted` (after the rename, before blobs/ is synced).
 */
export async function promoteWholeBuffers(
  partPath: string,
  blobDir: string,
  sha256: string,
  size: number,
  buffers: Buffer[],
  promoted: () => void,
  seal: SealRunner = inline,
): Promise<void> {
  let fd: number;
  // O_EXCL: never through a link planted at the partial's name (a link there is removed).
  try {
    fd = openSync(partPath, 'wx', 0o444);
  } catch (error) {
    // A file left where no partial was found at open (exclusive create keeps the mode ours).
    if (errno(error) !== 'EEXIST') throw error;
    rmSync(partPath, { force: true });
    fd = openSync(partPath, 'wx', 0o444);
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
  await seal(async () => {
    try {
      // The data is durable before the name says "verified blob" (docs/UPDATER.md §3).
      await fsyncFd(fd);
      // Promoted while still open, so no file swapped in can take its inode.
      await promoteSealedFd(partPath, blobDir, sha256, fd);
    } finally {
      closeSync(fd);
    }
    promoted();
  });
}
