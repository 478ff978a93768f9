/**
 * Temporary files of atomic writes that a kill left behind (docs/UPDATER.md §3, Temporary
 * files). Every durable file of DIR is written as `.<name>.<hex>.tmp` beside it, synced, then
 * renamed (`writeFileAtomic`); a kill between the two leaves the temporary file, which nothing
 * reads: harmless, but never collected, and at 10,000 artifacts a journal's is about 1 MB. The
 * store drops them when it opens, under the lock, so no run of ours is writing one then.
 *
 * Only the names this updater writes that way are dropped, each in its own directory: a file
 * of the user's in DIR, or another process's temporary lock file (lock-file.ts, whose owner may
 * be about to link it while we hold the lock), is never touched.
 */
import { readdir, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { tempTargetOf } from '#shared/atomic-file.js';
import { errno } from '../fs/index.js';
import type { StateDirPaths } from '../fs/index.js';
import { tufDirOf } from '../tuf/index.js';
import { TOUCH_FILE } from './state-touch.js';

/** A directory and which of its files' temporary names are ours to drop. */
interface TempHome {
  readonly dir: string;
  readonly ours: (target: string) => boolean;
}

function tempHomes(paths: StateDirPaths): TempHome[] {
  const named = (...names: string[]): ((target: string) => boolean) => {
    const set = new Set(names);
    return (target) => set.has(target);
  };
  return [
    { dir: paths.root, ours: named(basename(paths.pointer)) },
    { dir: paths.meta, ours: named(basename(paths.state), basename(paths.journal), TOUCH_FILE) },
    { dir: paths.manifests, ours: (target) => /^[0-9a-f]{64}\.json$/.test(target) },
    // Only TUF metadata is written there (file-metadata-store.ts).
    { dir: tufDirOf(paths.meta), ours: () => true },
  ];
}

/** Removes our temporary files in DIR and DIR/.updater; answers how many it removed. */
export async function dropStrayTemps(paths: StateDirPaths): Promise<number> {
  let dropped = 0;
  for (const home of tempHomes(paths)) {
    let names: string[];
    try {
      names = await readdir(home.dir);
    } catch (error) {
      if (errno(error) === 'ENOENT') continue;
      throw error;
    }
    for (const name of names) {
      const target = tempTargetOf(name);
      if (target === undefined || !home.ours(target)) continue;
      try {
        await rm(join(home.dir, name), { force: true });
        dropped++;
      } catch {
        // Not a file of ours after all (a directory made under such a name): harmless where it
        // is, and no reason to refuse the store.
      }
    }
  }
  return dropped;
}
