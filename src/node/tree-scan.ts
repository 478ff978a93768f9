/**
 * Re-hashes every file of an installed tree (for `verify`). Directories are walked, regular
 * files hashed as streams (bounded memory); anything else (a symlink, a device) is reported
 * with size -1 so it shows up as drift.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { InstalledArtifact } from '../core/state.js';
import { BLOB_MTIME_S } from './partial-blob.js';

const LSTAT_PARALLEL = 32;

/**
 * Names under `root` that are missing, not regular files, of the wrong size, or written since
 * install: installed files are hard links to blobs (or copies) carrying the sentinel mtime,
 * which any write changes. Cheap (one lstat each); `verify` re-hashes for the rest.
 */
export async function quickCheck(
  root: string,
  artifacts: readonly InstalledArtifact[],
): Promise<string[]> {
  const intact = new Array<boolean>(artifacts.length);
  let next = 0;
  // LSTAT_PARALLEL at a time: one by one, 10,000 files were most of a no-op update's time.
  const worker = async (): Promise<void> => {
    for (let i = next++; i < artifacts.length; i = next++) {
      const a = artifacts[i] as InstalledArtifact;
      const info = await lstat(join(root, ...a.name.split('/'))).catch(() => undefined);
      intact[i] =
        info !== undefined &&
        info.isFile() &&
        info.size === a.size &&
        info.mtimeMs === BLOB_MTIME_S * 1000;
    }
  };
  await Promise.all(Array.from({ length: Math.min(LSTAT_PARALLEL, artifacts.length) }, worker));
  return artifacts.filter((_, i) => intact[i] !== true).map((a) => a.name);
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
