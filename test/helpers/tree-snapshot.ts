/**
 * Snapshots a directory tree as relative names -> sha256 (files), "dir" or "link:<target>", so a
 * refused update can be proven to leave DIR/current byte-identical. A top-level symlink (DIR/current
 * may point at a versioned directory) is followed; symlinks inside are recorded, not followed.
 */
import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink, realpath } from 'node:fs/promises';
import { join } from 'node:path';

export type TreeSnapshot = ReadonlyMap<string, string>;

/** Snapshot of `root`; a missing root is an empty snapshot. */
export async function snapshotTree(root: string): Promise<TreeSnapshot> {
  const out = new Map<string, string>();
  let real: string;
  try {
    real = await realpath(root);
  } catch {
    return out;
  }
  await walk(real, '', out);
  return new Map([...out.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

async function walk(dir: string, prefix: string, out: Map<string, string>): Promise<void> {
  for (const entry of await readdir(dir)) {
    const full = join(dir, entry);
    const rel = prefix === '' ? entry : `${prefix}/${entry}`;
    const info = await lstat(full);
    if (info.isSymbolicLink()) out.set(rel, `link:${await readlink(full)}`);
    else if (info.isDirectory()) {
      out.set(rel, 'dir');
      await walk(full, rel, out);
    } else
      out.set(
        rel,
        createHash('sha256')
          .update(await readFile(full))
          .digest('hex'),
      );
  }
}

/** Plain object form, for readable `toEqual` diffs in test failures. */
export function snapshotObject(snapshot: TreeSnapshot): Record<string, string> {
  return Object.fromEntries(snapshot);
}

/** The files of a snapshot (name -> sha256), without directories and links. */
export function filesOf(snapshot: TreeSnapshot): Record<string, string> {
  return Object.fromEntries([...snapshot].filter(([, v]) => v !== 'dir' && !v.startsWith('link:')));
}
