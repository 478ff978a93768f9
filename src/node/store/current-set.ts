/**
 * Where the live set is, and how a commit switches it (docs/UPDATER.md §2 "Swap strategies").
 *
 *   symlink  DIR/current -> .updater/sets/<dir>: a new link renamed over the old one
 *            (rename(2), atomic). The POSIX default. Refused on Windows: MoveFileEx cannot
 *            replace a directory link, and creating one needs a privilege.
 *   pointer  DIR/current.json = {"set": ".updater/sets/<dir>"}: a file replaced atomically
 *            (temp file, fsync, rename, fsync dir). The Windows default: no privilege needed.
 *            On Windows a directory junction DIR/current is refreshed after it, for
 *            convenience only: the junction is never read to decide anything.
 *
 * One rule finds the live set whatever the strategy (`resolveCurrentSet`): DIR/current.json
 * when it exists, else the DIR/current symlink. A DIR switched to the other strategy is
 * migrated when it is opened (`adopt`): the new form is written first, naming the same set,
 * then the old one removed, so a crash in between leaves both naming one set.
 */
import { lstat, readFile, readlink, rename, rm, stat, symlink, unlink } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { UpdateError } from '#core/errors.js';
import { fsyncDir, writeFileAtomic } from '#shared/atomic-file.js';
import { errno } from '../fs/index.js';
import { stateDirPaths, type StateDirPaths } from '../fs/index.js';

export const SWAP_STRATEGIES = ['symlink', 'pointer'] as const;
export type SwapStrategy = (typeof SWAP_STRATEGIES)[number];

export function isSwapStrategy(value: string): value is SwapStrategy {
  return (SWAP_STRATEGIES as readonly string[]).includes(value);
}

/** symlink on POSIX, pointer on Windows (an ordinary user may not create symlinks there). */
export function defaultSwap(platform: NodeJS.Platform): SwapStrategy {
  return platform === 'win32' ? 'pointer' : 'symlink';
}

/**
 * The strategy asked for, or the platform's default. The symlink swap on Windows is refused
 * (CONFIG_INVALID) rather than done non-atomically: MoveFileEx, which Node's rename calls
 * there, cannot replace a directory or a directory link.
 */
export function chooseSwap(
  asked: SwapStrategy | undefined,
  platform: NodeJS.Platform,
): SwapStrategy {
  const swap = asked ?? defaultSwap(platform);
  if (swap === 'symlink' && platform === 'win32') {
    throw new UpdateError(
      'CONFIG_INVALID',
      'the symlink swap is not atomic on Windows (a directory link cannot be renamed over ' +
        'another); use the pointer swap',
    );
  }
  return swap;
}

/** A set directory name: 64 lowercase hex (a setId, or a repaired set's own name). */
const SET_DIR = /^[0-9a-f]{64}$/;
/** A pointer file is a few dozen bytes; anything far larger is not ours. */
const MAX_POINTER_BYTES = 4096;

type PointerState =
  | { readonly kind: 'absent' }
  | { readonly kind: 'corrupt' }
  | { readonly kind: 'set'; readonly dir: string };
type LinkState =
  | { readonly kind: 'absent' }
  | { readonly kind: 'not-a-link' }
  | { readonly kind: 'foreign' }
  | { readonly kind: 'set'; readonly dir: string };

/** The exact bytes of a pointer file naming `dir`. */
export function pointerBytes(dir: string): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify({ set: `.updater/sets/${dir}` })}\n`);
}

async function readPointer(paths: StateDirPaths): Promise<PointerState> {
  let bytes: Buffer;
  try {
    const info = await lstat(paths.pointer);
    if (!info.isFile() || info.size > MAX_POINTER_BYTES) return { kind: 'corrupt' };
    bytes = await readFile(paths.pointer);
  } catch (error) {
    if (errno(error) === 'ENOENT') return { kind: 'absent' };
    throw error;
  }
  try {
    const json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as unknown;
    const set = (json as { set?: unknown } | null)?.set;
    if (typeof set === 'string') {
      const match = /^\.updater\/sets\/([0-9a-f]{64})$/.exec(set);
      if (match?.[1] !== undefined) return { kind: 'set', dir: match[1] };
    }
  } catch {
    // Falls through: not JSON.
  }
  return { kind: 'corrupt' };
}

function samePath(a: string, b: string): boolean {
  return process.platform === 'win32' ? a.toLowerCase() === b.toLowerCase() : a === b;
}

/** DIR/current as a link to one of our sets (relative symlink or absolute junction). */
async function readCurrentLink(paths: StateDirPaths): Promise<LinkState> {
  let target: string;
  try {
    if (!(await lstat(paths.current)).isSymbolicLink()) return { kind: 'not-a-link' };
    target = await readlink(paths.current);
  } catch (error) {
    if (errno(error) === 'ENOENT') return { kind: 'absent' };
    throw error;
  }
  const full = resolve(paths.root, target.replace(/^\\\\\?\\/, ''));
  const dir = basename(full);
  return samePath(dirname(full), paths.sets) && SET_DIR.test(dir)
    ? { kind: 'set', dir }
    : { kind: 'foreign' };
}

/**
 * The directory name (under .updater/sets) of the live set, or null when none is. The pointer
 * file wins when it exists; a damaged one is STATE_CORRUPT, never guessed past.
 */
export async function liveSetDir(paths: StateDirPaths): Promise<string | null> {
  const pointer = await readPointer(paths);
  if (pointer.kind === 'corrupt') {
    throw new UpdateError('STATE_CORRUPT', `${paths.pointer} does not name a set`);
  }
  if (pointer.kind === 'set') return pointer.dir;
  const link = await readCurrentLink(paths);
  return link.kind === 'set' ? link.dir : null;
}

/**
 * The absolute path of the live installed set of the state directory `dir`, whatever the swap
 * strategy, or null before the first install. Read-only and lock-free: the consuming software
 * calls it to find what to run. STATE_CORRUPT when the pointer is damaged or names a set that
 * is not on disk.
 *
 * @example
 * const app = await resolveCurrentSet('/opt/myapp');   // '/opt/myapp/.updater/sets/9f2c...'
 */
export async function resolveCurrentSet(dir: string): Promise<string | null> {
  const paths = stateDirPaths(dir);
  const live = await liveSetDir(paths);
  if (live === null) return null;
  const path = join(paths.sets, live);
  const info = await stat(path).catch(() => undefined);
  if (info === undefined || !info.isDirectory()) {
    throw new UpdateError('STATE_CORRUPT', `the live set ${live} is not on disk`);
  }
  return path;
}

/** Windows refuses a rename over a file another process holds open without share-delete. */
const BUSY = new Set(['EPERM', 'EACCES', 'EBUSY']);

/** The live-set pointer of one state directory under one strategy (the commit's swap step). */
export class CurrentSet {
  private constructor(
    readonly paths: StateDirPaths,
    readonly swap: SwapStrategy,
    private readonly platform: NodeJS.Platform,
  ) {}

  /** Throws CONFIG_INVALID for a strategy that cannot be atomic on `platform`. */
  static of(
    paths: StateDirPaths,
    asked: SwapStrategy | undefined,
    platform: NodeJS.Platform = process.platform,
  ): CurrentSet {
    return new CurrentSet(paths, chooseSwap(asked, platform), platform);
  }

  /** The pointer strategy keeps a junction DIR/current on Windows, for convenience. */
  private get junction(): boolean {
    return this.swap === 'pointer' && this.platform === 'win32';
  }

  /** The live set's directory name, or null (also for a damaged pointer: not ours to trust). */
  async live(): Promise<string | null> {
    try {
      return await liveSetDir(this.paths);
    } catch (error) {
      if (error instanceof UpdateError) return null;
      throw error;
    }
  }

  /** Where the live set's files are read (a path that does not exist when none is live). */
  async path(): Promise<string> {
    const live = await this.live();
    return live === null ? this.paths.current : join(this.paths.sets, live);
  }

  /** Makes `dir` the live set: the commit point. Idempotent (journal replay runs it again). */
  async switchTo(dir: string): Promise<void> {
    if (this.swap === 'symlink') await this.switchLink(dir);
    else await this.switchPointer(dir);
  }

  /**
   * Migrates a DIR written under the other strategy (called when the store opens, before
   * journal recovery): the new form is written first, naming the set the old form names, then
   * the old form is removed. While both exist the pointer wins and both name the same set.
   */
  async adopt(): Promise<void> {
    const pointer = await readPointer(this.paths);
    if (pointer.kind === 'corrupt') {
      throw new UpdateError(
        'STATE_CORRUPT',
        `${this.paths.pointer} does not name a set: cannot tell which set is live`,
      );
    }
    if (this.swap === 'symlink') {
      if (pointer.kind === 'absent') return;
      await this.switchLink(pointer.dir);
      await rm(this.paths.pointer, { force: true });
      await fsyncDir(this.paths.root);
      return;
    }
    if (pointer.kind === 'set') {
      // A junction left behind by a crash between the pointer and its refresh catches up.
      if (this.junction) await this.refreshJunction(pointer.dir);
      return;
    }
    const link = await readCurrentLink(this.paths);
    if (link.kind !== 'set') return;
    await writeFileAtomic(this.paths.pointer, pointerBytes(link.dir));
    if (this.junction) await this.refreshJunction(link.dir);
    else {
      // A symlink left in place would silently stop following the live set.
      await unlink(this.paths.current);
      await fsyncDir(this.paths.root);
    }
  }

  private async switchLink(dir: string): Promise<void> {
    const { paths } = this;
    const linkTarget = relative(paths.root, join(paths.sets, dir));
    try {
      if ((await readlink(paths.current)) === linkTarget) return;
    } catch (error) {
      if (errno(error) === 'EINVAL') {
        throw new UpdateError('IO', `${paths.current} exists and is not our symlink`);
      }
      if (errno(error) !== 'ENOENT') throw error;
    }
    const tmp = `${paths.current}.next`;
    await rm(tmp, { force: true });
    await symlink(linkTarget, tmp, 'dir');
    await rename(tmp, paths.current);
    await fsyncDir(paths.root);
  }

  private async switchPointer(dir: string): Promise<void> {
    const now = await readPointer(this.paths);
    if (now.kind !== 'set' || now.dir !== dir) {
      for (let attempt = 0; ; attempt++) {
        try {
          await writeFileAtomic(this.paths.pointer, pointerBytes(dir));
          break;
        } catch (error) {
          // A reader holding current.json open on Windows: wait a little (at most ~0.6 s).
          const code = errno(error);
          if (this.platform !== 'win32' || code === undefined || !BUSY.has(code) || attempt >= 5) {
            throw error;
          }
          await sleep(20 * 2 ** attempt);
        }
      }
    }
    if (this.junction) await this.refreshJunction(dir);
  }

  /**
   * Points the convenience junction DIR/current at `dir`. Not atomic (a junction cannot be
   * renamed over another: removed, then created) and best effort: the pointer already decided,
   * so a failure here is not a failed commit, and the next open refreshes it again. A DIR/current
   * that is a real file or folder is somebody else's and is left alone.
   */
  private async refreshJunction(dir: string): Promise<void> {
    try {
      const link = await readCurrentLink(this.paths);
      if (link.kind === 'set' && link.dir === dir) return;
      if (link.kind === 'not-a-link') return;
      if (link.kind !== 'absent') await unlink(this.paths.current);
      await symlink(join(this.paths.sets, dir), this.paths.current, 'junction');
    } catch {
      // Convenience only (see above).
    }
  }
}
