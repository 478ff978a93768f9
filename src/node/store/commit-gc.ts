/**
 * Step 6 of the commit protocol (commit-journal.ts, docs/UPDATER.md §3): what neither the
 * installed nor the previous set uses is removed (sets, their signed manifests, blobs, stale
 * partials), and the blob facts of the run are saved once, after the GC's last link change.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { StepHook } from '#core/install/index.js';
import { setDir, type UpdaterState } from '#core/state.js';
import { keepBlobFacts, saveBlobFacts } from '../blobs/index.js';
import type { StateDirPaths } from '../fs/index.js';
import { allSettled } from './settle-all.js';

/** The GC after a commit to `state`, and the facts of the `kept` blobs saved. */
export async function collectAfterCommit(
  paths: StateDirPaths,
  state: UpdaterState,
  kept: ReadonlySet<string>,
  onStep: StepHook | undefined,
): Promise<void> {
  // Removing sets unlinks blobs' hard links (their ctime moves): keep the facts that held.
  // With no set to remove (a first install) no link changes, and nothing is re-checked.
  const doomed = await doomedSets(paths, state);
  const collect = async (): Promise<void> => {
    await collectGarbage(paths, state, doomed);
    onStep?.('gc-done');
  };
  if (doomed.length > 0) {
    await keepBlobFacts(paths.blobs, kept, collect);
    // The facts of the run, once per commit, after the GC's last link change (blob-facts.ts).
    await saveBlobFacts(paths.blobs, kept);
  } else {
    // No set removed: the GC changes no link of a kept blob, so their facts are final now and
    // are saved beside it (docs/UPDATER.md §3, The commit's durable steps side by side).
    await allSettled([collect(), saveBlobFacts(paths.blobs, kept)]);
  }
}

/** The entries of sets/ that neither the installed nor the previous set uses. */
async function doomedSets(paths: StateDirPaths, state: UpdaterState): Promise<string[]> {
  const dirs = new Set<string>();
  for (const set of [state.installed, state.previous]) if (set !== null) dirs.add(setDir(set));
  return (await readdir(paths.sets)).filter((entry) => !dirs.has(entry));
}

/**
 * Keeps what the installed and previous sets reference; removes the rest (`doomed`: the
 * caller's `doomedSets`, listed once).
 */
async function collectGarbage(
  paths: StateDirPaths,
  state: UpdaterState,
  doomed: readonly string[],
): Promise<void> {
  const sets = new Set<string>();
  const blobs = new Set<string>();
  for (const set of [state.installed, state.previous]) {
    if (set === null) continue;
    sets.add(set.setId);
    for (const a of set.artifacts) blobs.add(a.sha256);
  }
  for (const entry of doomed) {
    await rm(join(paths.sets, entry), { recursive: true, force: true });
  }
  // Three directories, each listed and cleared independently of the others.
  await allSettled([
    removeUnkept(paths.manifests, (entry) => sets.has(entry.replace(/\.json$/, ''))),
    removeUnkept(paths.blobs, (entry) => blobs.has(entry)),
    // Every blob the new set needs is in place, so any partial left is stale.
    removeUnkept(paths.partial, () => false),
  ]);
}

/** Removes every entry of `dir` that `kept` does not keep. */
async function removeUnkept(dir: string, kept: (entry: string) => boolean): Promise<void> {
  for (const entry of await readdir(dir)) {
    if (!kept(entry)) await rm(join(dir, entry), { force: true });
  }
}
