/**
 * Every byte of a batch written, or the write's own error (docs/UPDATER.md §3, Durability). A
 * write to a regular file that takes fewer bytes than asked means the disk (or the user's
 * quota) filled up part-way; writing the rest then fails with the reason, ENOSPC or EDQUOT,
 * which is what the user must read, with its errno, rather than a bare "short write". A write
 * that takes nothing at all without an error is refused as one, so the loop always ends.
 */
import { UpdateError } from '#core/errors.js';

/** `buffers` without their first `skip` bytes (views, no copy). */
export function afterBytes(buffers: readonly Buffer[], skip: number): Buffer[] {
  const rest: Buffer[] = [];
  let left = skip;
  for (const buffer of buffers) {
    if (left >= buffer.length) {
      left -= buffer.length;
      continue;
    }
    rest.push(left === 0 ? buffer : buffer.subarray(left));
    left = 0;
  }
  return rest;
}

function stuck(written: number, size: number): UpdateError {
  return new UpdateError('IO', `short write (${written} of ${size} bytes)`);
}

/** Writes `size` bytes of `buffers` with `write` (one writev each), until all are written. */
export function writeAllSync(
  write: (buffers: readonly Buffer[]) => number,
  buffers: readonly Buffer[],
  size: number,
): void {
  let written = write(buffers);
  while (written < size) {
    const more = write(afterBytes(buffers, written));
    if (more <= 0) throw stuck(written, size);
    written += more;
  }
}

/** `writeAllSync` for an asynchronous `write`. */
export async function writeAll(
  write: (buffers: readonly Buffer[]) => Promise<number>,
  buffers: readonly Buffer[],
  size: number,
): Promise<void> {
  let written = await write(buffers);
  while (written < size) {
    const more = await write(afterBytes(buffers, written));
    if (more <= 0) throw stuck(written, size);
    written += more;
  }
}
