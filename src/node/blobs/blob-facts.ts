/**
 * When a held blob may be reused without re-hashing it (docs/SECURITY.md §8). The sentinel
 * mtime alone is not enough: anyone who can write the blob can also set its mtime back. So
 * the facts of the file as it was verified are recorded (facts-book.ts: in memory for the
 * process, saved in one file per commit): device, inode, size, mtime and ctime (nanoseconds).
 * ctime cannot be set back by a user: any write, chmod, utimes or rename moves it. A blob is
 * reused unverified only while all of them still hold; otherwise it is re-hashed through a
 * handle opened without following links, and kept (facts recorded anew) only if it still
 * matches its name. A blob that does not is removed, so it is fetched again rather than
 * installed.
 *
 * Links made by the updater itself change a blob's ctime (link(2) and unlink(2) move it), so
 * the store re-records the facts of blobs that held just before such a step (`keepBlobFacts`).
 * The lstat calls here are direct (a few microseconds): at 10,000 blobs a thread-pool round
 * trip per call cost more than the calls.
 */
import { createHash } from 'node:crypto';
import { constants, fstatSync, lstatSync, renameSync, rmSync, type BigIntStats } from 'node:fs';
import { rename, rm, type FileHandle } from 'node:fs/promises';
import { sep } from 'node:path';
import { factsBookOf, factsOf, loadedFactsBook, type FactsBook } from './facts-book.js';
import { arrivalHookOf } from './arrival-hook.js';
import { BLOB_MTIME_S } from './intact-blob.js';
import { openNoFollow, unsafeEntry } from '../fs/index.js';

export { verifiedDirOf } from './facts-book.js';

/**
 * `blobs/<sha256>`: a digest (64 hex digits, checked at parse) under the store's own directory
 * path, so nothing is left for path.join to normalise (docs/UPDATER.md §10.1).
 */
export function blobPath(blobDir: string, sha256: string): string {
  return `${blobDir}${sep}${sha256}`;
}

/**
 * The stat options, made once: an object literal in the call was a fresh object per stat,
 * several per blob (docs/UPDATER.md §8, "Many small artifacts").
 */
const EXACT = { bigint: true } as const;
const EXACT_OR_ABSENT = { bigint: true, throwIfNoEntry: false } as const;

/** lstat with exact (bigint) numbers, refusing a link; undefined when absent. */
function lstatBig(path: string): BigIntStats | undefined {
  const info = lstatSync(path, EXACT_OR_ABSENT);
  if (info?.isSymbolicLink() === true) throw unsafeEntry(path, 'is a symbolic link');
  return info;
}

/**
 * Records the facts of the blob at `path` (`blobs/<sha256>`) as it is now, in a loaded book:
 * call only right after verifying it. The synchronous form serves loops over thousands of
 * blobs (set-staging.ts), where an awaited call per blob cost more than its lstat.
 */
export function recordFactsNow(book: FactsBook, path: string, sha256: string): void {
  const info = lstatBig(path);
  if (info === undefined) book.forget(sha256);
  else book.record(sha256, info);
}

/** Records the facts of `blobs/<sha256>` as it is now: call only right after verifying it. */
export async function recordBlobFacts(blobDir: string, sha256: string): Promise<void> {
  recordFactsNow(await factsBookOf(blobDir), blobPath(blobDir, sha256), sha256);
}

/** Forgets a blob: the file and its facts. */
export async function dropBlob(blobDir: string, sha256: string): Promise<void> {
  arrivalHookOf(blobDir)?.dropped(sha256);
  await rm(blobPath(blobDir, sha256), { force: true });
  (await factsBookOf(blobDir)).forget(sha256);
}

/**
 * Whether the recorded facts of the blob at `path` (`blobs/<sha256>`) still hold (no hashing),
 * in a loaded book; with `size`, also that it is that many bytes. A link is STATE_UNSAFE.
 */
export function factsHoldNow(
  book: FactsBook,
  path: string,
  sha256: string,
  size?: number,
): boolean {
  const info = lstatBig(path);
  if (info === undefined || !info.isFile()) return false;
  return (size === undefined || info.size === BigInt(size)) && book.holds(sha256, info);
}

/** Whether the blob's recorded facts still hold (no hashing). */
export async function blobFactsHold(blobDir: string, sha256: string): Promise<boolean> {
  return factsHoldNow(await factsBookOf(blobDir), blobPath(blobDir, sha256), sha256);
}

/**
 * Saves the facts of `blobDir`, forgetting every blob but `held` (what a GC kept): once per
 * commit, without fsync (facts-book.ts says why).
 */
export async function saveBlobFacts(blobDir: string, held: ReadonlySet<string>): Promise<void> {
  const book = await factsBookOf(blobDir);
  book.retainOnly(held);
  await book.save();
}

/** The sentinel mtime in nanoseconds, as `stat` with `bigint` reports it. */
const SENTINEL_NS = BigInt(BLOB_MTIME_S) * 1_000_000_000n;

/** Read-only, sentinel mtime, through the open handle (no path is followed). */
export async function sealBlob(handle: FileHandle): Promise<void> {
  await handle.chmod(0o444);
  await handle.utimes(BLOB_MTIME_S, BLOB_MTIME_S);
}

/**
 * Renames a sealed, verified file into `blobs/<sha256>` and records its facts. The caller
 * keeps `handle` (the verified file) open meanwhile, so its inode cannot be reused: the file
 * that arrives under the blob's name must be that very inode, and one swapped in under the
 * partial's name (a link, another file) is removed and refused.
 */
export async function promoteSealed(
  from: string,
  blobDir: string,
  sha256: string,
  handle: FileHandle,
): Promise<void> {
  const sealed = await handle.stat(EXACT);
  const to = blobPath(blobDir, sha256);
  await rename(from, to);
  await keepIfArrived(from, to, blobDir, sha256, sealed);
}

/**
 * `promoteSealed` for a file descriptor kept open by the caller (partial-blob.ts: direct
 * calls for small artifacts, where a thread-pool round trip costs more than the call).
 */
export async function promoteSealedFd(
  from: string,
  blobDir: string,
  sha256: string,
  fd: number,
): Promise<void> {
  const sealed = fstatSync(fd, EXACT);
  const to = blobPath(blobDir, sha256);
  renameSync(from, to);
  // The book is loaded before a small blob is sealed (blob-sealer.ts): no await per blob then.
  const book = loadedFactsBook(blobDir) ?? (await factsBookOf(blobDir));
  keepIfArrivedIn(book, blobDir, from, to, sha256, sealed);
}

/**
 * Records the facts of the renamed blob (`to`, `blobs/<sha256>`: one path string per
 * promotion) if it is the sealed inode; else drops and refuses. A set staged during the pull
 * links it first (arrival-hook.ts), so this one lstat is both the arrival check and the facts
 * after the blob's last link (docs/UPDATER.md §3, Staging during the pull).
 */
async function keepIfArrived(
  from: string,
  to: string,
  blobDir: string,
  sha256: string,
  sealed: BigIntStats,
): Promise<void> {
  keepIfArrivedIn(await factsBookOf(blobDir), blobDir, from, to, sha256, sealed);
}

/** `keepIfArrived` in a loaded book. */
function keepIfArrivedIn(
  book: FactsBook,
  blobDir: string,
  from: string,
  to: string,
  sha256: string,
  sealed: BigIntStats,
): void {
  arrivalHookOf(blobDir)?.arrived(sha256, to);
  const info = lstatSync(to, EXACT);
  if (
    info.isSymbolicLink() ||
    !info.isFile() ||
    info.ino !== sealed.ino ||
    info.dev !== sealed.dev
  ) {
    // Removed at once (the name must not outlive the refusal), with any staged names of it,
    // forgotten by the book.
    arrivalHookOf(blobDir)?.dropped(sha256);
    rmSync(to, { force: true });
    book.forget(sha256);
    throw unsafeEntry(from, 'was replaced while it was being verified');
  }
  book.record(sha256, info);
}

/** SHA-256 of an open file, read from its start. */
async function hashHandle(handle: FileHandle): Promise<string> {
  const hash = createHash('sha256');
  const buffer = Buffer.alloc(1024 * 1024);
  for (let at = 0; ;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, at);
    if (bytesRead === 0) break;
    hash.update(buffer.subarray(0, bytesRead));
    at += bytesRead;
  }
  return hash.digest('hex');
}

/**
 * Whether `blobs/<sha256>` may be reused as the signed `size` bytes of that digest: its facts
 * hold, or it is re-hashed now and matches (facts recorded anew, the seal restored). False
 * when absent, or when it no longer matches (then it is removed). A link or anything but a
 * regular file is STATE_UNSAFE.
 */
export async function trustBlob(blobDir: string, sha256: string, size: number): Promise<boolean> {
  const book = await factsBookOf(blobDir);
  const path = blobPath(blobDir, sha256);
  const info = lstatBig(path);
  if (info === undefined) return false;
  if (!info.isFile()) throw unsafeEntry(path, 'is not a regular file');
  if (info.size !== BigInt(size)) {
    await dropBlob(blobDir, sha256);
    return false;
  }
  if (book.holds(sha256, info)) return true;
  const handle = await openNoFollow(path, constants.O_RDONLY);
  let intact: boolean;
  try {
    const before = await handle.stat(EXACT);
    const digest = await hashHandle(handle);
    const after = await handle.stat(EXACT);
    // Written while being hashed: not the bytes hashed; treated as tampered.
    const steady = factsOf(before) === factsOf(after);
    intact = steady && digest === sha256 && after.size === BigInt(size);
    if (intact && (after.mtimeNs !== SENTINEL_NS || (after.mode & 0o222n) !== 0n)) {
      await sealBlob(handle);
    }
  } finally {
    await handle.close();
  }
  if (!intact) {
    await dropBlob(blobDir, sha256);
    return false;
  }
  await recordBlobFacts(blobDir, sha256);
  return true;
}

/**
 * Runs `body` (which links or unlinks blobs: staging, GC) and re-records the facts of those
 * of `sha256s` whose facts held right before it, so the updater's own link changes do not cost
 * a re-hash. A blob whose facts did not hold stays unrecorded (re-hashed before any reuse).
 */
export async function keepBlobFacts<T>(
  blobDir: string,
  sha256s: Iterable<string>,
  body: () => Promise<T>,
): Promise<T> {
  const held: string[] = [];
  for (const sha of new Set(sha256s)) {
    if (await blobFactsHold(blobDir, sha).catch(() => false)) held.push(sha);
  }
  const result = await body();
  for (const sha of held) await recordBlobFacts(blobDir, sha);
  return result;
}
