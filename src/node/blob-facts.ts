/**
 * When a held blob may be reused without re-hashing it (docs/SECURITY.md §8). The sentinel
 * mtime alone is not enough: anyone who can write the blob can also set its mtime back. So
 * the facts of the file as it was verified are recorded in `.updater/verified/<sha256>`:
 * device, inode, size, mtime and ctime (nanoseconds). ctime cannot be set back by a user: any
 * write, chmod, utimes or rename moves it. A blob is reused unverified only while all of them
 * still hold; otherwise it is re-hashed through a handle opened without following links, and
 * kept (facts recorded anew) only if it still matches its name. A blob that does not is
 * removed, so it is fetched again rather than installed.
 *
 * Links made by the updater itself change a blob's ctime (link(2) and unlink(2) move it), so
 * the store re-records the facts of blobs that held just before such a step (`keepBlobFacts`).
 */
import { createHash } from 'node:crypto';
import { constants, fstatSync, lstatSync, renameSync, type BigIntStats } from 'node:fs';
import { lstat, readdir, readFile, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { errno } from './fs-errors.js';
import { BLOB_MTIME_S } from './partial-blob.js';
import { ensureRealDir, lstatNoLink, openNoFollow, unsafeEntry } from './safe-fs.js';

/** What was true of a blob's file when it was last verified. */
interface BlobFacts {
  readonly dev: string;
  readonly ino: string;
  readonly size: string;
  readonly mtimeNs: string;
  readonly ctimeNs: string;
}

function factsOf(info: BigIntStats): BlobFacts {
  return {
    dev: info.dev.toString(),
    ino: info.ino.toString(),
    size: info.size.toString(),
    mtimeNs: info.mtimeNs.toString(),
    ctimeNs: info.ctimeNs.toString(),
  };
}

const sameFacts = (a: BlobFacts, b: BlobFacts): boolean =>
  a.dev === b.dev &&
  a.ino === b.ino &&
  a.size === b.size &&
  a.mtimeNs === b.mtimeNs &&
  a.ctimeNs === b.ctimeNs;

/** `.updater/verified`, the sibling of `.updater/blobs`. */
export function verifiedDirOf(blobDir: string): string {
  return join(dirname(blobDir), 'verified');
}

const factsPath = (blobDir: string, sha256: string): string => join(verifiedDirOf(blobDir), sha256);

/** lstat with exact (bigint) numbers, refusing a link; undefined when absent. */
async function lstatBig(path: string): Promise<BigIntStats | undefined> {
  if ((await lstatNoLink(path)) === undefined) return undefined;
  try {
    return await lstat(path, { bigint: true });
  } catch (error) {
    if (errno(error) === 'ENOENT') return undefined;
    throw error;
  }
}

async function readFacts(blobDir: string, sha256: string): Promise<BlobFacts | undefined> {
  const path = factsPath(blobDir, sha256);
  const info = await lstatNoLink(path);
  if (info === undefined || !info.isFile()) return undefined;
  try {
    const o = JSON.parse(await readFile(path, 'utf8')) as Partial<Record<keyof BlobFacts, unknown>>;
    const str = (v: unknown): string => (typeof v === 'string' ? v : '');
    return {
      dev: str(o.dev),
      ino: str(o.ino),
      size: str(o.size),
      mtimeNs: str(o.mtimeNs),
      ctimeNs: str(o.ctimeNs),
    };
  } catch {
    return undefined;
  }
}

/**
 * Records the facts of `blobs/<sha256>` as it is now: call only right after verifying it.
 * Written whole then renamed, without fsync: a facts file lost or left stale by a crash only
 * costs a re-hash, since its ctime cannot match a file changed since (docs/SECURITY.md §8).
 */
export async function recordBlobFacts(blobDir: string, sha256: string): Promise<void> {
  const info = await lstatBig(join(blobDir, sha256));
  if (info === undefined) return;
  await writeFacts(blobDir, sha256, factsOf(info));
}

async function writeFacts(blobDir: string, sha256: string, facts: BlobFacts): Promise<void> {
  await ensureRealDir(verifiedDirOf(blobDir));
  const path = factsPath(blobDir, sha256);
  const temp = `${path}.tmp`;
  await writeFile(temp, JSON.stringify(facts), { mode: 0o600 });
  await rename(temp, path);
}

/** Forgets a blob: the file and its facts. */
export async function dropBlob(blobDir: string, sha256: string): Promise<void> {
  await rm(join(blobDir, sha256), { force: true });
  await rm(factsPath(blobDir, sha256), { force: true });
}

/** Whether the blob's recorded facts still hold (no hashing). */
export async function blobFactsHold(blobDir: string, sha256: string): Promise<boolean> {
  const info = await lstatBig(join(blobDir, sha256));
  if (info === undefined || !info.isFile()) return false;
  const recorded = await readFacts(blobDir, sha256);
  return recorded !== undefined && sameFacts(recorded, factsOf(info));
}

/** Computed when used: partial-blob.ts imports this module too. */
const sentinelNs = (): bigint => BigInt(BLOB_MTIME_S) * 1_000_000_000n;

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
  const sealed = await handle.stat({ bigint: true });
  await rename(from, join(blobDir, sha256));
  await keepIfArrived(from, blobDir, sha256, sealed);
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
  const sealed = fstatSync(fd, { bigint: true });
  renameSync(from, join(blobDir, sha256));
  await keepIfArrived(from, blobDir, sha256, sealed);
}

/** Records the facts of the renamed blob if it is the sealed inode; else drops and refuses. */
async function keepIfArrived(
  from: string,
  blobDir: string,
  sha256: string,
  sealed: BigIntStats,
): Promise<void> {
  const info = lstatSync(join(blobDir, sha256), { bigint: true });
  if (
    info.isSymbolicLink() ||
    !info.isFile() ||
    info.ino !== sealed.ino ||
    info.dev !== sealed.dev
  ) {
    await dropBlob(blobDir, sha256);
    throw unsafeEntry(from, 'was replaced while it was being verified');
  }
  await writeFacts(blobDir, sha256, factsOf(info));
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
  const path = join(blobDir, sha256);
  const info = await lstatBig(path);
  if (info === undefined) return false;
  if (!info.isFile()) throw unsafeEntry(path, 'is not a regular file');
  if (info.size !== BigInt(size)) {
    await dropBlob(blobDir, sha256);
    return false;
  }
  const recorded = await readFacts(blobDir, sha256);
  if (recorded !== undefined && sameFacts(recorded, factsOf(info))) return true;
  const handle = await openNoFollow(path, constants.O_RDONLY);
  let intact: boolean;
  try {
    const before = await handle.stat({ bigint: true });
    const digest = await hashHandle(handle);
    const after = await handle.stat({ bigint: true });
    // Written while being hashed: not the bytes hashed; treated as tampered.
    const steady = sameFacts(factsOf(before), factsOf(after));
    intact = steady && digest === sha256 && after.size === BigInt(size);
    if (intact && (after.mtimeNs !== sentinelNs() || (after.mode & 0o222n) !== 0n)) {
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
  options: { prune?: boolean } = {},
): Promise<T> {
  const held: string[] = [];
  for (const sha of new Set(sha256s)) {
    if (await blobFactsHold(blobDir, sha).catch(() => false)) held.push(sha);
  }
  const result = await body();
  for (const sha of held) await recordBlobFacts(blobDir, sha);
  if (options.prune === true) await pruneBlobFacts(blobDir);
  return result;
}

/** Removes the facts of blobs no longer held (after a GC). */
async function pruneBlobFacts(blobDir: string): Promise<void> {
  const dir = verifiedDirOf(blobDir);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if (errno(error) === 'ENOENT') return;
    throw error;
  }
  for (const name of names) {
    const blob = await lstat(join(blobDir, name)).catch(() => undefined);
    if (blob === undefined) await rm(join(dir, name), { force: true });
  }
}
