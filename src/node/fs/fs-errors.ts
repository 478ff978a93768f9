/** Small file-system helpers of the state directory: errno codes, existence, IO wrapping. */
import { lstat } from 'node:fs/promises';
import { errnoDetails, UpdateError } from '#core/errors.js';

export function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** lstat-based: a dangling symlink exists too. */
export async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if (errno(error) === 'ENOENT') return false;
    throw error;
  }
}

/** Wraps file-system failures as IO (UpdateErrors pass through): the store port's boundary. */
export async function io<T>(what: string, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof UpdateError) throw error;
    const message = error instanceof Error ? error.message : 'failed';
    // The path and errno go into the details too (docs/UPDATER.md §7), for --json readers.
    throw new UpdateError('IO', `${what}: ${message}`, {
      cause: error,
      details: errnoDetails(error),
    });
  }
}

/** No space or quota left. */
const FULL = new Set(['ENOSPC', 'EDQUOT']);

/**
 * A failure a full disk explains: a commit whose clean-up is pending (its set is live), or an
 * IO error whose errno is ENOSPC or EDQUOT. Recovery then leaves its journal for a later run.
 */
export function isDiskFull(error: unknown): boolean {
  if (!(error instanceof UpdateError)) return FULL.has(errno(error) ?? '');
  if (error.code === 'CLEANUP_PENDING') return true;
  const found = error.details?.['errno'];
  return error.code === 'IO' && typeof found === 'string' && FULL.has(found);
}
