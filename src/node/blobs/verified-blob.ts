/**
 * A blob whose bytes the core has already checked against its signed SHA-256 (a pack member,
 * docs/UPDATER.md §11, step 4) is written once as a sealed read-only file and promoted like any
 * small blob (whole-blob.ts: the same create, seal, durable tail and arrival check), with no
 * hash of its own: the range fetch's check, made the moment the member's last byte arrived,
 * is the one that decides, and hashing the same bytes again cost a second SHA-256 and a Hash
 * object per member (docs/UPDATER.md §11.1). The size is still checked here.
 */
import { sep } from 'node:path';
import { UpdateError } from '#core/errors.js';
import { fillPartial } from '#core/store-verified.js';
import { openPartialBlob } from './partial-open.js';
import type { PartialBlobOptions, PartialPaths } from './partial-types.js';
import { promoteWholeBuffers } from './whole-blob.js';

/**
 * Stores `bytes` (verified against `sha256` by the caller) as that blob. Where a partial may
 * be left by an earlier run (`mayExist`), it goes through the partial instead, which drops
 * those bytes and their validator file and hashes the member again: rare (after a kill), and
 * the one place that cleans a partial up.
 */
export async function storeVerifiedBlob(
  paths: PartialPaths,
  sha256: string,
  size: number,
  bytes: Uint8Array,
  options: PartialBlobOptions,
): Promise<void> {
  if (bytes.length !== size) {
    throw new UpdateError('SIZE_MISMATCH', `got ${bytes.length} bytes, signed ${size}`);
  }
  if (options.mayExist !== false) {
    await fillPartial(await openPartialBlob(paths, sha256, size, options), bytes);
    return;
  }
  const partPath = `${paths.partialDir}${sep}${sha256}.part`;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const promoted = (): void => {
    options.onPromoted?.();
    options.onStep?.('blob-promoted');
  };
  await promoteWholeBuffers(
    partPath,
    paths.blobDir,
    sha256,
    size,
    [buffer],
    promoted,
    options.seal,
  );
  options.onWritten?.(size);
}
