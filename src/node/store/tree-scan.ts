/**
 * Re-hashes every file of an installed tree (for `verify`). Directories are walked, regular
 * files hashed as streams (bounded memory); anything else (a symlink, a device) is reported
 * with size -1 so it shows up as drift.
 */
import { createHash } from 'node:crypto';
import { createReadStream, lstatSync } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { setImmediate } from 'node:timers/promises';
import type { InstalledArtifact } from '#core/state.js';
import { BLOB_MTIME_S } from '../blobs/index.js';

/**
 * lstat calls made back to back before the event loop gets a turn. A synchronous lstat of a
 * cached inode costs a few microseconds; the promise form pays a thread-pool hop and a
 * microtask each, which made 10,000 of them most of a no-op update (docs/UPDATER.md §3, No-op
 * runs). Batches keep a host's event loop (the tray app's main process) responsive.
 */
const LSTAT_BATCH = 1024;

/** An artifact's path: names are safe relative POSIX paths (protocol/artifact-name.ts). */
export const artifactPath = (root: string, name: string): string =>
  sep === '/' ? `${root}/${name}` : join(root, ...name.split('/'));

/**
 * Names under `root` that are missing, not regular files, of the wrong size, or written since
 * install: installed files are hard links to blobs (or copies) carrying the sentinel mtime,
 * which any write changes. Cheap (one lstat each); `verify` re-hashes for the rest.
 */
export async function quickCheck(
  root: string,
  artifacts: readonly InstalledArtifact[],
): Promise<string[]> {
  const damaged: string[] = [];
  const sentinelMs = BLOB_MTIME_S * 1000;
  for (let i = 0; i < artifacts.length; i++) {
    if (i > 0 && i % LSTAT_BATCH === 0) await setImmediate();
    const a = artifacts[i] as InstalledArtifact;
    let info;
    try {
      info = lstatSync(artifactPath(root, a.name), { throwIfNoEntry: false });
    } catch {
      info = undefined; // ENOTDIR, EACCES, ...: not intact either way
    }
    const intact =
      info !== undefined && info.isFile() && info.size === a.size && info.mtimeMs === sentinelMs;
    if (!intact) damaged.push(a.name);
  }
  return damaged;
}

/** Streams a file through SHA-256. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Lists `root` (followed if it is a symlink) as POSIX names with size and SHA-256. */
export async function scanTree(root: string): Promise<InstalledArtifact[]> {
  const out: InstalledArtifact[] = [];
  try {
    await lstat(root);
  } catch {
    return out;
  }
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const name = relative(root, path).split(sep).join('/');
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) {
        const info = await stat(path);
        out.push({ name, size: info.size, sha256: await sha256File(path) });
      } else out.push({ name, size: -1, sha256: '' });
    }
  };
  await walk(root);
  return out;
}
