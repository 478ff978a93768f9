/**
 * The state directory cannot be turned against its owner (docs/SECURITY.md §8): nothing inside
 * DIR/.updater is ever reached through a symbolic link. Opens carry O_NOFOLLOW (where the OS
 * has it: not Windows), paths are lstat-ed before use, and an entry that is a link, or of the
 * wrong kind (a file where a directory belongs), is refused with STATE_UNSAFE naming it. The
 * directories are checked (and the missing ones created one level at a time, never through a
 * link) before the lock is taken and again when the store opens; leaf files are checked where
 * they are used. DIR itself may be a link (the owner's choice), and so is DIR/current by design.
 */
import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open, readdir, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { UpdateError } from '#core/errors.js';
import { errno } from './fs-errors.js';
import type { StateDirPaths } from './state-dir.js';

/** 0 where the platform has no O_NOFOLLOW (Windows: lstat checks stand alone there). */
export const O_NOFOLLOW: number = constants.O_NOFOLLOW ?? 0;

/** The refusal for `path`. */
export function unsafeEntry(path: string, what: string): UpdateError {
  return new UpdateError(
    'STATE_UNSAFE',
    `${path} ${what}; the state directory is refused (nothing inside it is followed or written through a link)`,
  );
}

/** ELOOP (Linux, macOS) or EMLINK (FreeBSD): O_NOFOLLOW met a symbolic link. */
function isLinkRefusal(error: unknown): boolean {
  const code = errno(error);
  return code === 'ELOOP' || code === 'EMLINK';
}

/** lstat that refuses a link: undefined when absent. */
export async function lstatNoLink(path: string): Promise<Stats | undefined> {
  let info: Stats;
  try {
    info = await lstat(path);
  } catch (error) {
    if (errno(error) === 'ENOENT') return undefined;
    throw error;
  }
  if (info.isSymbolicLink()) throw unsafeEntry(path, 'is a symbolic link');
  return info;
}

/** Opens `path` without following a link at its last component (refused as STATE_UNSAFE). */
export async function openNoFollow(
  path: string,
  flags: number,
  mode?: number,
): Promise<FileHandle> {
  // Windows has no O_NOFOLLOW: look first there (and everywhere, for the clearer error).
  const info = await lstatNoLink(path);
  if (info !== undefined && !info.isFile()) throw unsafeEntry(path, 'is not a regular file');
  try {
    return await open(path, flags | O_NOFOLLOW, mode);
  } catch (error) {
    if (isLinkRefusal(error)) throw unsafeEntry(path, 'is a symbolic link');
    throw error;
  }
}

/** Reads a whole file without following a link; undefined when it does not exist. */
export async function readNoFollow(path: string): Promise<Buffer | undefined> {
  let handle: FileHandle;
  try {
    handle = await openNoFollow(path, constants.O_RDONLY);
  } catch (error) {
    if (errno(error) === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** A directory that must be a real one: created (0700) when missing, refused when a link. */
export async function ensureRealDir(path: string): Promise<void> {
  let info = await lstatNoLink(path);
  if (info === undefined) {
    try {
      await mkdir(path, { mode: 0o700 });
    } catch (error) {
      if (errno(error) !== 'EEXIST') throw error;
    }
    info = await lstatNoLink(path);
  }
  if (info === undefined || !info.isDirectory()) throw unsafeEntry(path, 'is not a directory');
}

/** The directories of DIR/.updater this module guards, besides the paths of StateDirPaths. */
export function extraStateDirs(paths: StateDirPaths): { chunks: string; verified: string } {
  return { chunks: join(paths.meta, 'chunks'), verified: join(paths.meta, 'verified') };
}

/**
 * Directories whose entries are listed at open: none may be a link. Both hold a few entries
 * (installed and previous). blobs/, partial/ and verified/ may hold thousands, too many to list
 * at every open (docs/UPDATER.md §10.1): their entries are checked where they are used instead (blob-facts.ts,
 * partial-blob.ts, chunked-partial.ts).
 */
function scannedDirs(paths: StateDirPaths): string[] {
  return [paths.manifests, paths.sets];
}

/**
 * Checks DIR/.updater before anything is written in it: every internal directory is a real
 * directory (created when missing, one level at a time so no link is ever walked through),
 * the internal files are not links, and no entry directly inside manifests/ or sets/ is a
 * link. Throws STATE_UNSAFE naming the first offender.
 */
export async function prepareStateDir(paths: StateDirPaths): Promise<void> {
  // DIR itself: created if missing (the owner may have made it a link: that is their choice).
  await mkdir(paths.root, { recursive: true, mode: 0o700 }).catch((error: unknown) => {
    // mkdir -p answers EEXIST when DIR is a file (ENOTDIR when a folder above it is): a wrong
    // setting, said as one (docs/UPDATER.md §7), not an IO failure reading "it exists".
    const code = errno(error);
    if (code !== 'EEXIST' && code !== 'ENOTDIR') throw error;
    throw new UpdateError(
      'CONFIG_INVALID',
      `the state directory ${paths.root} is not a directory`,
      {
        cause: error,
        details: { path: paths.root, errno: code },
      },
    );
  });
  await ensureRealDir(paths.meta);
  const extra = extraStateDirs(paths);
  for (const dir of [
    paths.blobs,
    paths.partial,
    paths.sets,
    paths.manifests,
    extra.chunks,
    extra.verified,
  ]) {
    await ensureRealDir(dir);
  }
  for (const file of [paths.lock, paths.state, paths.journal]) {
    const info = await lstatNoLink(file);
    if (info !== undefined && !info.isFile()) throw unsafeEntry(file, 'is not a regular file');
  }
  // The audit log: a link, a directory, a device... anything but a regular file is refused.
  const audit = await lstatNoLink(paths.audit);
  if (audit !== undefined && !audit.isFile())
    throw unsafeEntry(paths.audit, 'is not a regular file');
  for (const dir of scannedDirs(paths)) {
    // d_type from readdir: no lstat per entry.
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.isSymbolicLink()) throw unsafeEntry(join(dir, entry.name), 'is a symbolic link');
    }
  }
}
