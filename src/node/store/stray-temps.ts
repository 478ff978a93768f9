/**
 * Temporary files of atomic writes that a kill left behind (docs/UPDATER.md §3, Temporary
 * files). Every file written with `writeFileAtomic` is written as `.<name>.<hex>.tmp` beside
 * it, synced, then renamed; a kill between the two leaves the temporary file, which nothing
 * reads: harmless, but never collected, and at 10,000 artifacts a journal's is about 1 MB. The
 * store drops them when it opens, only under the lock (file-store.ts `locked`), so no run of
 * ours is writing one then.
 *
 * Only the names this updater writes that way are dropped, each in its own directory: a file
 * of the user's in DIR is never touched. The temporary files of the lock and of its break
 * markers (lock-file.ts) are another process's: one that has not got the lock yet and may be
 * about to link its record while we hold it. Such a file lives for one write and fsync, so it
 * is dropped only once it is LOCK_TEMP_STALE_MS old (its owner was killed before the link).
 */
import { lstat, readdir, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { tempTargetOf } from '#shared/atomic-file.js';
import { errno } from '../fs/index.js';
import type { StateDirPaths } from '../fs/index.js';
import { tufDirOf } from '../tuf/index.js';
import { TOUCH_FILE } from './state-touch.js';

/** A temporary lock record older than this was left by a killed process (lock-file.ts). */
export const LOCK_TEMP_STALE_MS = 10 * 60_000;

/** Whether a temporary file is dropped: at once, only once stale, or never (undefined). */
type Drop = 'now' | 'when-stale' | undefined;

/** A directory and which of its files' temporary names are ours to drop. */
interface TempHome {
  readonly dir: string;
  readonly drop: (target: string) => Drop;
  /** Not checked for links when the store opens (prepareStateDir): checked here first. */
  readonly unchecked?: true;
}

function tempHomes(paths: StateDirPaths): TempHome[] {
  const ours = new Set([basename(paths.state), basename(paths.journal), TOUCH_FILE]);
  const lock = basename(paths.lock);
  return [
    { dir: paths.root, drop: (target) => (target === basename(paths.pointer) ? 'now' : undefined) },
    {
      dir: paths.meta,
      drop: (target) =>
        ours.has(target)
          ? 'now'
          : target === lock || target.startsWith(`${lock}.breaking-`)
            ? 'when-stale'
            : undefined,
    },
    {
      dir: paths.manifests,
      drop: (target) => (/^[0-9a-f]{64}\.json$/.test(target) ? 'now' : undefined),
    },
    // TUF metadata and the retired keys (file-metadata-store.ts). tuf/ is checked for links
    // only when TUF is set up, after the store opens.
    {
      dir: tufDirOf(paths.meta),
      unchecked: true,
      drop: (target) => (target.endsWith('.json') || target === 'retired-keys' ? 'now' : undefined),
    },
  ];
}

/** Whether `dir` is a directory itself, not a link to one (absent: false). */
async function realDirectory(dir: string): Promise<boolean> {
  const info = await lstat(dir).catch(() => undefined);
  return info?.isDirectory() === true;
}

/** Whether `path` was last written at least LOCK_TEMP_STALE_MS before `nowMs`. */
async function stale(path: string, nowMs: number): Promise<boolean> {
  const info = await lstat(path).catch(() => undefined);
  return info !== undefined && nowMs - info.mtimeMs >= LOCK_TEMP_STALE_MS;
}

/**
 * Removes our temporary files in DIR and DIR/.updater; answers how many it removed. `nowMs`
 * (tests) judges the age of temporary lock records.
 */
export async function dropStrayTemps(paths: StateDirPaths, nowMs = Date.now()): Promise<number> {
  let dropped = 0;
  for (const home of tempHomes(paths)) {
    // Never through a link (docs/SECURITY.md §8); DIR itself may be one, by the owner's choice.
    if (home.unchecked === true && !(await realDirectory(home.dir))) continue;
    let names: string[];
    try {
      names = await readdir(home.dir);
    } catch (error) {
      if (errno(error) === 'ENOENT') continue;
      throw error;
    }
    for (const name of names) {
      const target = tempTargetOf(name);
      const drop = target === undefined ? undefined : home.drop(target);
      if (drop === undefined) continue;
      const path = join(home.dir, name);
      if (drop === 'when-stale' && !(await stale(path, nowMs))) continue;
      try {
        await rm(path, { force: true });
        dropped++;
      } catch {
        // Not a file of ours after all (a directory made under such a name): harmless where it
        // is, and no reason to refuse the store.
      }
    }
  }
  return dropped;
}
