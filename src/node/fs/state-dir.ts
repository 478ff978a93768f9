/**
 * The layout of a state directory (docs/UPDATER.md §State directory):
 *
 *   DIR/current            -> .updater/sets/<setId>   (symlink strategy: swapped with rename(2);
 *                                                     pointer strategy on Windows: a junction)
 *   DIR/current.json        {"set": ".updater/sets/<setId>"} (pointer strategy, atomic replace)
 *   DIR/.updater/lock       PID of the process that owns DIR
 *   DIR/.updater/state.json the persisted UpdaterState (atomic replace)
 *   DIR/.updater/journal.json  commit intent while a commit is in flight
 *   DIR/.updater/blobs/<sha256>           verified, read-only artifact contents
 *   DIR/.updater/partial/<sha256>.part    downloads in progress (+ .meta: HTTP validator)
 *   DIR/.updater/sets/<setId>/<name>      complete installed trees (hard links to blobs)
 *   DIR/.updater/manifests/<setId>.json   the signed envelope each set came from
 *   DIR/.updater/audit.log                hash-chained log of accepted manifests
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';

export interface StateDirPaths {
  readonly root: string;
  readonly current: string;
  /** The pointer file of the pointer swap strategy (current-set.ts). */
  readonly pointer: string;
  readonly meta: string;
  readonly lock: string;
  readonly state: string;
  readonly journal: string;
  readonly blobs: string;
  readonly partial: string;
  readonly sets: string;
  readonly manifests: string;
  readonly audit: string;
}

export function stateDirPaths(dir: string): StateDirPaths {
  const root = resolve(dir);
  const meta = join(root, '.updater');
  return {
    root,
    current: join(root, 'current'),
    pointer: join(root, 'current.json'),
    meta,
    lock: join(meta, 'lock'),
    state: join(meta, 'state.json'),
    journal: join(meta, 'journal.json'),
    blobs: join(meta, 'blobs'),
    partial: join(meta, 'partial'),
    sets: join(meta, 'sets'),
    manifests: join(meta, 'manifests'),
    audit: join(meta, 'audit.log'),
  };
}

/** `manifests/<setId>.json`: the signed envelope a set came from. */
export function envelopePath(paths: StateDirPaths, setId: string): string {
  return join(paths.manifests, `${setId}.json`);
}

/** Creates the directories (0700: the state is private to the user). */
export async function ensureStateDirs(paths: StateDirPaths): Promise<void> {
  for (const dir of [
    paths.root,
    paths.meta,
    paths.blobs,
    paths.partial,
    paths.sets,
    paths.manifests,
  ]) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  }
}
