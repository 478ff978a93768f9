/**
 * The tree a set is staged in, sets/<dir>.staging (docs/UPDATER.md §3, Staging during the
 * pull). Made before the pull when the core says which set it will commit (`expectSet`); each
 * blob the pull promotes is then linked under every name of it the moment it gets its name in
 * blobs/ (arrival-hook.ts), so that after the pull `stageSet` links only the blobs the store
 * already held, fsyncs the directories and renames the tree into place, as before.
 *
 * Nothing here is durable or trusted yet: the tree has a staging name, which `recoverCommit`
 * drops after a crash and `create` drops before a run, and only `stageSet` renames it to
 * sets/<dir>, before the journal names it. A blob's names are linked all or none; a blob that
 * could not be linked now (no hard links on this file system, a full disk) is left for the
 * commit, which copies or fails as it always did.
 */
import { linkSync, mkdirSync, rmSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join, sep } from 'node:path';
import type { InstalledArtifact } from '#core/state.js';
import type { ArrivalHook } from '../blobs/index.js';
import { errno } from '../fs/index.js';
import { artifactPath } from './tree-scan.js';

export class StagingTree implements ArrivalHook {
  /**
   * The names of each blob of the set, by digest: the manifest's own strings (a path is made
   * only when linked), one name without an array, as nearly every blob has.
   */
  private readonly names = new Map<string, string | string[]>();
  /** Digests whose every name is linked in the tree. */
  private readonly linked = new Set<string>();
  /** Directories of the tree, each made once and fsynced by `stageSet`. */
  readonly dirs: Set<string>;
  /** A link could not be undone: the tree is not known to hold only what `linked` says. */
  private spoiled = false;
  /**
   * A link failed (no hard links on this file system, a full disk): the rest is left to the
   * commit, which copies or fails as before, rather than a refused link per blob now.
   */
  private refused = false;

  private constructor(
    /** The set directory's name under sets/. */
    readonly dir: string,
    /** sets/<dir>.staging. */
    readonly root: string,
    artifacts: readonly InstalledArtifact[],
  ) {
    this.dirs = new Set([root]);
    for (const a of artifacts) {
      const known = this.names.get(a.sha256);
      if (known === undefined) this.names.set(a.sha256, a.name);
      else if (typeof known === 'string') this.names.set(a.sha256, [known, a.name]);
      else known.push(a.name);
    }
  }

  /**
   * An empty sets/<dir>.staging (whatever a failed run left there is removed first) that links
   * the blobs of `artifacts` as they arrive; with none, a tree for `stageSet` alone.
   */
  static async create(
    sets: string,
    dir: string,
    artifacts: readonly InstalledArtifact[] = [],
  ): Promise<StagingTree> {
    const root = `${join(sets, dir)}.staging`;
    await rm(root, { recursive: true, force: true });
    await mkdir(root, { mode: 0o755 });
    return new StagingTree(dir, root, artifacts);
  }

  /** Whether `stageSet` may finish this tree as sets/<dir> (else it builds one afresh). */
  usableFor(dir: string): boolean {
    return dir === this.dir && !this.spoiled;
  }

  /** Whether every name of `sha256` is linked in the tree already. */
  holds(sha256: string): boolean {
    return this.linked.has(sha256);
  }

  /** Makes the parent directory of a staged path, once (`dirs`). */
  makeParent(path: string): void {
    const parent = path.slice(0, path.lastIndexOf(sep));
    if (this.dirs.has(parent)) return;
    mkdirSync(parent, { recursive: true, mode: 0o755 });
    this.dirs.add(parent);
  }

  /** The staged paths of `sha256`'s names; undefined for a blob not in the set. */
  private pathsOf(sha256: string): string[] | undefined {
    const names = this.names.get(sha256);
    if (names === undefined) return undefined;
    if (typeof names === 'string') return [artifactPath(this.root, names)];
    return names.map((name) => artifactPath(this.root, name));
  }

  arrived(sha256: string, blob: string): void {
    if (this.refused) return;
    const paths = this.pathsOf(sha256);
    if (paths === undefined) return;
    // Promoted again (a new inode under the same name): its names follow the new one.
    if (this.linked.delete(sha256)) this.unlink(paths);
    try {
      for (const path of paths) {
        this.makeParent(path);
        linkSync(blob, path);
      }
      this.linked.add(sha256);
    } catch {
      // No hard links here, a full disk, ...: the commit links or copies them, as before.
      this.refused = true;
      this.unlink(paths);
    }
  }

  dropped(sha256: string): void {
    const paths = this.pathsOf(sha256);
    if (paths !== undefined && this.linked.delete(sha256)) this.unlink(paths);
  }

  /** Removes staged names; one that cannot be removed spoils the tree (built afresh). */
  private unlink(paths: readonly string[]): void {
    for (const path of paths) {
      try {
        rmSync(path, { force: true });
      } catch (error) {
        // ENOTDIR: a parent is not a directory, so the name is not there either.
        if (errno(error) !== 'ENOTDIR') this.spoiled = true;
      }
    }
  }
}
