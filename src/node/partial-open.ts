/**
 * Opening the partial file of one artifact, kept apart from the writing and promotion of
 * partial-blob.ts: this is the resume side (docs/UPDATER.md §3, Resume). Bytes already on disk
 * are re-hashed, never trusted (the whole file must still match the signed digest); a partial
 * longer than the signed size, or not a regular file, is discarded; the HTTP validator comes
 * from `<sha256>.meta` only when there are bytes to resume.
 */
import { createHash, type Hash } from 'node:crypto';
import { constants } from 'node:fs';
import { rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { StepHook } from '../core/install-steps.js';
import type { PartialBlob, Timers } from '../core/ports.js';
import { FilePartialBlob } from './partial-blob.js';
import { lstatNoLink, openNoFollow, readNoFollow } from './safe-fs.js';

export interface PartialPaths {
  readonly partialDir: string;
  readonly blobDir: string;
}

export interface PartialBlobOptions {
  /** Called after each durable step (crash tests). */
  readonly onStep?: StepHook | undefined;
  /** Told the bytes of each append (read-buffer-gc.ts paces a GC on it). */
  readonly onWritten?: ((bytes: number) => void) | undefined;
  /** Drives the idle flush (default: the system timers). */
  readonly timers?: Timers | undefined;
  /**
   * Told after a blob was renamed into the blob directory, before that directory is synced:
   * the owner syncs it once per batch (FileStore, before the commit journal).
   */
  readonly onPromoted?: (() => void) | undefined;
  /**
   * False when the caller knows there is no partial file for this digest (FileStore lists the
   * directory once): the stat is skipped. A wrong `false` only loses a resume, never a check.
   */
  readonly mayExist?: boolean | undefined;
}

/** A partial file as opened: its open handle and the hash of the bytes already in it. */
export interface OpenedPartial extends PartialBlobOptions {
  readonly paths: PartialPaths;
  readonly sha256: string;
  readonly size: number;
  /** Open when the file has bytes (a resume); else created at the first append. */
  readonly handle: FileHandle | undefined;
  readonly hash: Hash;
  readonly offset: number;
  readonly validator: string | undefined;
}

async function hashPrefix(path: string, length: number): Promise<Hash> {
  const hash = createHash('sha256');
  if (length === 0) return hash;
  // Through a handle opened without following a link (closed when the stream ends).
  const handle = await openNoFollow(path, constants.O_RDONLY);
  for await (const chunk of handle.createReadStream({ start: 0, end: length - 1 })) {
    hash.update(chunk as Buffer);
  }
  return hash;
}

async function readValidator(path: string): Promise<string | undefined> {
  try {
    const json = JSON.parse((await readNoFollow(path))?.toString('utf8') ?? '') as {
      validator?: unknown;
    };
    return typeof json.validator === 'string' ? json.validator : undefined;
  } catch {
    return undefined;
  }
}

/** Opens (or creates) the partial file of one artifact, re-hashing what is already there. */
export async function openPartialBlob(
  paths: PartialPaths,
  sha256: string,
  size: number,
  options: PartialBlobOptions = {},
): Promise<PartialBlob> {
  const partPath = join(paths.partialDir, `${sha256}.part`);
  const metaPath = join(paths.partialDir, `${sha256}.meta`);
  let length = 0;
  let found = false;
  // A planted link at the partial's name is refused (STATE_UNSAFE), never written through.
  const info = options.mayExist === false ? undefined : await lstatNoLink(partPath);
  if (info !== undefined) {
    found = true;
    length = info.isFile() ? info.size : 0;
    if (!info.isFile() || info.size > size) {
      // Longer than signed: those bytes cannot all be right (docs/UPDATER.md §Resume).
      await rm(partPath, { force: true, recursive: true });
      await rm(metaPath, { force: true });
      length = 0;
    }
  }
  const validator = length > 0 ? await readValidator(metaPath) : undefined;
  const hash = await hashPrefix(partPath, length);
  // No partial on disk (the usual case): the file is created at its first append, if any.
  const { O_WRONLY, O_CREAT, O_APPEND, O_TRUNC } = constants;
  const flags = O_WRONLY | O_CREAT | (length > 0 ? O_APPEND : O_TRUNC);
  const handle = found ? await openNoFollow(partPath, flags, 0o644) : undefined;
  const offset = length;
  return new FilePartialBlob({ ...options, paths, sha256, size, handle, hash, offset, validator });
}
