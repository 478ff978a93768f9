/**
 * Step 1 of the commit protocol (commit-journal.ts, docs/UPDATER.md §3): the complete new tree
 * is built under sets/<dir>.staging from hard links to verified blobs, fsynced, and renamed to
 * sets/<dir>. DIR/current is untouched until the journal names the new set.
 *
 * The blobs a pull brings are linked as they arrive (staging-tree.ts, docs/UPDATER.md §3,
 * Staging during the pull); what is left runs here once per artifact the store already held,
 * 10,000 times for an update of many small files that changes few, after the pull and before
 * anything else can happen (docs/UPDATER.md §8, Many small artifacts). So each
 * turn does its file calls directly (a thread-pool hop per link waited longer than the link)
 * and asks the facts book itself: a blob whose recorded facts hold right now (the common case)
 * costs one lstat before its link and one after, with no promise in between. Anything else (a
 * blob without facts, resized, replaced, a link) goes through `trustBlob`, which re-hashes,
 * drops or refuses exactly as before.
 */
import { linkSync } from 'node:fs';
import { copyFile, rename, rm, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate } from 'node:timers/promises';
import { UpdateError } from '#core/errors.js';
import type { InstalledArtifact } from '#core/state.js';
import { fsyncDir } from '#shared/atomic-file.js';
import { blobPath, factsHoldNow, recordFactsNow, trustBlob } from '../blobs/index.js';
import type { CurrentSet } from './current-set.js';
import { factsBookOf } from '../blobs/index.js';
import { exists } from '../fs/index.js';
import { BLOB_MTIME_S } from '../blobs/index.js';
import { StagingTree } from './staging-tree.js';
import { artifactPath } from './tree-scan.js';

/**
 * Links made back to back before the event loop gets a turn: batches keep a host's event loop
 * (the tray app's main process) responsive, as quickCheck's lstat batches do.
 */
const LINK_BATCH = 256;

export interface StagingPaths {
  readonly sets: string;
  readonly blobs: string;
}

/**
 * Builds sets/<dir> from blobs. An existing directory is reused only when it is the live
 * DIR/current; any other one (a set kept after a rollback) may have been written to since, and
 * its hard links may share a tampered inode, so it is rebuilt from the verified blobs. `early`
 * is the tree the pull staged into (staging-tree.ts): its blobs linked then are not linked
 * again, and their facts, recorded after those links (blob-facts.ts `keepIfArrived`), must
 * still hold.
 */
export async function stageSet(
  paths: StagingPaths,
  current: Pick<CurrentSet, 'live'>,
  dir: string,
  artifacts: readonly InstalledArtifact[],
  early?: StagingTree,
): Promise<void> {
  const target = join(paths.sets, dir);
  const kept = await exists(target);
  if (kept && (await current.live()) === dir) {
    if (early !== undefined) await rm(early.root, { recursive: true, force: true });
    return;
  }
  const tree = early?.usableFor(dir) === true ? early : await StagingTree.create(paths.sets, dir);
  if (early !== undefined && early !== tree && early.dir !== dir) {
    await rm(early.root, { recursive: true, force: true });
  }
  await linkRest(tree, paths.blobs, artifacts);
  for (const d of tree.dirs) await fsyncDir(d);
  if (kept) {
    // Moved aside, not deleted in place: recoverCommit drops any "*.staging*" left by a crash.
    const old = `${target}.staging-old`;
    await rm(old, { recursive: true, force: true });
    await rename(target, old);
    await rename(tree.root, target);
    await rm(old, { recursive: true, force: true });
  } else {
    await rename(tree.root, target);
  }
  await fsyncDir(paths.sets);
}

/** Links every artifact the tree does not hold yet (after a pull: the blobs already held). */
async function linkRest(
  tree: StagingTree,
  blobs: string,
  artifacts: readonly InstalledArtifact[],
): Promise<void> {
  const book = await factsBookOf(blobs);
  let made = 0;
  for (const a of artifacts) {
    const blob = blobPath(blobs, a.sha256);
    if (tree.holds(a.sha256)) {
      // Linked as it arrived, its facts recorded after that link: it is committed only while
      // they still hold, as a blob linked here is. One written to since the pull linked it
      // (the tree shares its inode) loses its staged names and is checked as any other below:
      // re-hashed, and linked again only if it still matches.
      if (factsHoldNow(book, blob, a.sha256, a.size)) continue;
      tree.dropped(a.sha256);
    }
    if (++made % LINK_BATCH === 0) await setImmediate();
    const path = artifactPath(tree.root, a.name);
    tree.makeParent(path);
    // Its recorded facts hold, or it is re-hashed now (blob-facts.ts); a link is STATE_UNSAFE.
    const held = factsHoldNow(book, blob, a.sha256, a.size);
    if (!held && !(await trustBlob(blobs, a.sha256, a.size))) {
      throw new UpdateError('IO', `blob of ${a.name} is missing or was modified`);
    }
    try {
      linkSync(blob, path);
    } catch {
      // File systems without hard links: a copy, given the sentinel so quickCheck holds.
      await copyFile(blob, path);
      await utimes(path, BLOB_MTIME_S, BLOB_MTIME_S);
    }
    // The facts held one call ago; the link moved the ctime, so they are recorded anew
    // (what keepBlobFacts does, without checking again what was just checked).
    recordFactsNow(book, blob, a.sha256);
  }
}
