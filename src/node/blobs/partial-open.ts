/**
 * Opening the partial file of one artifact, kept apart from the writing and promotion of
 * partial-blob.ts: this is the resume side (docs/UPDATER.md §3, Resume). Bytes already on disk
 * are re-hashed, never trusted (the whole file must still match the signed digest); a partial
 * longer than the signed size, or not a regular file, is discarded; the HTTP validator comes
 * from `<sha256>.meta` only when there are bytes to resume.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { rm } from 'node:fs/promises';
import { sep } from 'node:path';
import type { PartialBlob } from '#core/ports.js';
import { InThreadSink, type AppendSink } from '../workers/index.js';
import { HashAppendWorker } from '../workers/index.js';
import { FilePartialBlob } from './partial-blob.js';
import { metaPathOf, readValidator } from './partial-meta.js';
import { lstatNoLink, openNoFollow } from '../fs/index.js';
import type { PartialBlobOptions, PartialPaths } from './partial-types.js';

/**
 * Signed size from which a partial is hashed and appended by the worker thread. Why 4 MiB: a
 * thread is not worth starting for less, and it pays only with a core to spare
 * (docs/UPDATER.md §10.4; §3, Throughput of one large artifact). It goes
 * with GC_EVERY_BYTES of 1 MiB (src/core/transfer/gc-pacer.ts), which buys back the worker's isolate.
 */
export const OFFLOAD_MIN_BYTES = 4 * 1024 * 1024;

/**
 * Bytes coalesced per append when offloaded: one hand-over to the worker and one write per
 * MiB, so the threads wake each other 4 times less than at FLUSH_BYTES; also the most a
 * kill -9 loses of such an artifact while its bytes flow (docs/UPDATER.md §3, Resume).
 */
export const OFFLOAD_FLUSH_BYTES = 1024 * 1024;

async function hashPrefix(path: string, length: number): Promise<AppendSink> {
  const hash = createHash('sha256');
  const sink = new InThreadSink(hash);
  if (length === 0) return sink;
  // Through a handle opened without following a link (closed when the stream ends).
  const handle = await openNoFollow(path, constants.O_RDONLY);
  for await (const chunk of handle.createReadStream({ start: 0, end: length - 1 })) {
    hash.update(chunk as Buffer);
  }
  return sink;
}

/** Opens (or creates) the partial file of one artifact, re-hashing what is already there. */
export async function openPartialBlob(
  paths: PartialPaths,
  sha256: string,
  size: number,
  options: PartialBlobOptions = {},
): Promise<PartialBlob> {
  const partPath = `${paths.partialDir}${sep}${sha256}.part`;
  const metaPath = (): string => metaPathOf(paths.partialDir, sha256);
  let length = 0;
  let found = false;
  // A planted link at the partial's name is refused (STATE_UNSAFE), never written through.
  const info = options.mayExist === false ? undefined : await lstatNoLink(partPath);
  if (info !== undefined) {
    found = true;
    length = info.isFile() ? info.size : 0;
    if (!info.isFile() || info.size > size) {
      // Longer than signed: those bytes cannot all be right (docs/UPDATER.md §3, Resume).
      await rm(partPath, { force: true, recursive: true });
      await rm(metaPath(), { force: true });
      length = 0;
    }
  }
  const validator = length > 0 ? await readValidator(metaPath()) : undefined;
  // Never below one batch: an artifact that arrives whole is checked in memory (whole-blob.ts),
  // and only an append hands bytes to the worker.
  const offload =
    size > OFFLOAD_FLUSH_BYTES && size >= (options.offloadMinBytes ?? OFFLOAD_MIN_BYTES);
  // No partial on disk (the usual case): the file is created at its first append, if any.
  // Readable too when offloaded: the worker re-hashes the resumed bytes through this handle.
  // A complete one (a kill came between its write and its rename) is only re-hashed and
  // promoted: read-only, since it was created 0444 and only root could open it for writing.
  const { O_RDONLY, O_RDWR, O_WRONLY, O_CREAT, O_APPEND, O_TRUNC } = constants;
  const flags =
    length > 0 && length === size
      ? O_RDONLY
      : (offload ? O_RDWR : O_WRONLY) | O_CREAT | (length > 0 ? O_APPEND : O_TRUNC);
  const handle = found ? await openNoFollow(partPath, flags, 0o644) : undefined;
  let sink: AppendSink;
  if (offload) {
    const worker = new HashAppendWorker();
    try {
      if (handle !== undefined) await worker.prefix(handle.fd, length);
    } catch (error) {
      await worker.close();
      await handle?.close();
      throw error;
    }
    sink = worker;
  } else {
    // Nothing on disk (a fresh download, the usual case): no read, no await.
    sink =
      length === 0 ? new InThreadSink(createHash('sha256')) : await hashPrefix(partPath, length);
  }
  const offset = length;
  const flushBytes = offload ? OFFLOAD_FLUSH_BYTES : undefined;
  const opened = { paths, partPath, sha256, size, handle, sink, offset, validator, flushBytes };
  return new FilePartialBlob(opened, options);
}
