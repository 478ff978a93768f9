/**
 * One process per state directory (docs/UPDATER.md §8, the per-OS lock guarantee).
 *
 * The lock file is born whole: its record is written to a temporary file, fsynced, then
 * link(2)-ed to the lock name, which fails with EEXIST when the lock is taken, so no reader
 * ever sees a lock without its owner. (Where the file system has no hard links it is created
 * with O_EXCL and then written; an empty or unreadable lock is therefore taken as held until it
 * is UNREADABLE_STALE_MS old.)
 *
 * What the record says, and when its holder counts as gone, is lock-record.ts. A stale lock is
 * removed only by the one process that created its break marker (`lock.breaking-<digest of the
 * stale content>`, born the same way), which judges it again first, so two processes racing
 * for one stale lock never both win, and a fresh lock is never removed for an old one.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { link, open, unlink } from 'node:fs/promises';
import { UpdateError } from '#core/errors.js';
import { tempPathFor } from '#shared/atomic-file.js';
import { errno, io } from '../fs/index.js';
import {
  judgeHolder,
  lacksOwnerFacts,
  ownRecord,
  parseRecord,
  type Judgement,
} from './lock-record.js';
import { systemOsFacts, type OsFacts } from './os-facts.js';
import { lstatNoLink, readNoFollow } from '../fs/index.js';

export { procStartTime as processStartTime } from './os-facts.js';
// Re-exported: callers and tests import the record format from the lock module.
export {
  BOOT_SLACK_MS,
  judgeHolder,
  ownRecord,
  parseRecord,
  type Judgement,
  type LockRecord,
} from './lock-record.js';

/** An empty or unparsable lock (or guard) is held until its mtime is this old. */
export const UNREADABLE_STALE_MS = 10_000;

/** Points where a test may pause a contender to force interleavings. */
export type LockPoint =
  | 'before-create'
  | 'created-empty'
  | 'after-create'
  | 'after-read'
  | 'after-judge'
  | 'marker-taken'
  | 'before-remove';

export interface LockOptions {
  /** The OS as seen by the lock (default: this machine). */
  readonly facts?: OsFacts;
  /** Awaited at each LockPoint, with the file it concerns (race tests). */
  readonly pause?: (point: LockPoint, path: string) => Promise<void>;
  /** Attempts before giving up with LOCKED (default 3). */
  readonly attempts?: number;
  /**
   * False: create as a file system without hard links must (O_EXCL, then write), which tests
   * use to prove an empty lock is taken as held. Default: link(2), falling back by itself.
   */
  readonly hardLinks?: boolean;
}

type Pause = (point: LockPoint, path: string) => Promise<void>;

export interface LockHandle {
  release(): Promise<void>;
}

/** A lock file as read: its text and, when it says nothing usable, how old it is. */
async function judgeFile(
  path: string,
  facts: OsFacts,
): Promise<{ text: string; judgement: Judgement } | undefined> {
  const bytes = await readNoFollow(path).catch((error: unknown) => {
    if (error instanceof UpdateError) throw error;
    return null; // unreadable (EACCES, ...): judged by age below
  });
  if (bytes === undefined) return undefined; // gone since
  const text = bytes === null ? '' : bytes.toString('utf8');
  const record = parseRecord(text);
  // A bare PID that is gone is stale at once; one that exists may be anyone's (pid 1).
  if (record !== undefined && !(lacksOwnerFacts(record) && facts.processExists(record.pid))) {
    return { text, judgement: judgeHolder(record, facts) };
  }
  // Empty, torn, unreadable, or a bare PID that no owner check can judge: a creator may be
  // writing it; stale only once old enough (docs/UPDATER.md §8).
  const info = await lstatNoLink(path).catch(() => undefined);
  if (info === undefined) return undefined;
  const ageMs = Math.abs(facts.nowMs() - info.mtimeMs);
  const what = record === undefined ? 'unreadable' : `pid ${record.pid} without start or boot time`;
  return ageMs >= UNREADABLE_STALE_MS
    ? { text, judgement: { held: false, why: `${what}, and old` } }
    : { text, judgement: { held: true, why: `${what}, recent (being written?)` } };
}

/** File systems without hard links answer link(2) with one of these. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);

/** Creates `path` holding `content` in one step; false when it already exists. */
async function createWhole(
  path: string,
  content: string,
  pause: Pause,
  hardLinks: boolean,
): Promise<boolean> {
  if (!hardLinks) return createExclusive(path, content, pause);
  const temp = tempPathFor(path);
  const handle = await open(temp, 'wx', 0o644);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temp, path);
    return true;
  } catch (error) {
    if (errno(error) === 'EEXIST') return false;
    if (!NO_HARD_LINKS.has(errno(error) ?? '')) throw error;
    return createExclusive(path, content, pause);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** The fallback without hard links: O_EXCL, then the content (readers wait on an empty lock). */
async function createExclusive(path: string, content: string, pause: Pause): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o644);
  } catch (error) {
    if (errno(error) === 'EEXIST') return false;
    throw error;
  }
  try {
    await pause('created-empty', path);
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return true;
}

/** Removes `path` if it still holds `expected` (a file this process wrote). */
async function removeOwn(path: string, expected: string): Promise<void> {
  const now = await readNoFollow(path).catch(() => undefined);
  if (now !== undefined && now.toString('utf8') === expected) {
    await unlink(path).catch(() => undefined);
  }
}

/** Past this many markers of markers (each one a breaker that died), give up: LOCKED. */
const MAX_BREAK_DEPTH = 4;

/**
 * The marker whose creator alone may remove `path` while it holds `text`: one per stale
 * content (records carry a nonce, so a content is never seen twice), created like a lock.
 */
export function breakMarker(path: string, text: string): string {
  return `${path}.breaking-${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
}

/**
 * Removes a stale lock, but only the very file judged stale, and only as the one process that
 * created its break marker. Without the marker two processes could both judge the old lock
 * stale, and the slower one would remove the faster one's fresh lock: both would then own DIR.
 * The marker's creator judges the file again before removing it (an empty lock is told from a
 * fresh empty one by its age). A marker whose creator died is broken the same way, one level up.
 */
async function breakStale(
  path: string,
  staleText: string,
  ctx: { facts: OsFacts; pause: Pause; hardLinks: boolean },
  depth = 0,
): Promise<void> {
  const marker = breakMarker(path, staleText);
  const mine = ownRecord(ctx.facts);
  if (await createWhole(marker, mine, ctx.pause, ctx.hardLinks)) {
    try {
      await ctx.pause('marker-taken', marker);
      const again = await judgeFile(path, ctx.facts);
      await ctx.pause('before-remove', path);
      if (again !== undefined && again.text === staleText && !again.judgement.held) {
        await unlink(path).catch((error: unknown) => {
          if (errno(error) !== 'ENOENT') throw error;
        });
      }
    } finally {
      await removeOwn(marker, mine);
    }
    return;
  }
  // Another process is removing this very lock now, or died doing it.
  if (depth >= MAX_BREAK_DEPTH) return;
  const other = await judgeFile(marker, ctx.facts);
  if (other !== undefined && !other.judgement.held) {
    await breakStale(marker, other.text, ctx, depth + 1);
  }
}

/** Takes the lock at `path` or throws LOCKED (STATE_UNSAFE when the lock is a link, else IO). */
export function acquireLock(path: string, options: LockOptions = {}): Promise<LockHandle> {
  return io('take the state-directory lock', () => acquire(path, options));
}

async function acquire(path: string, options: LockOptions): Promise<LockHandle> {
  const facts = options.facts ?? systemOsFacts;
  const pause = options.pause ?? (() => Promise.resolve());
  const hardLinks = options.hardLinks ?? true;
  const content = ownRecord(facts);
  let last: Judgement | undefined;
  for (let attempt = 0; attempt < (options.attempts ?? 3); attempt++) {
    await pause('before-create', path);
    // A planted link at the lock name is refused, never written through.
    await lstatNoLink(path);
    if (await createWhole(path, content, pause, hardLinks)) {
      await pause('after-create', path);
      return { release: () => removeOwn(path, content) };
    }
    const found = await judgeFile(path, facts);
    await pause('after-read', path);
    if (found === undefined) continue; // released between our create and read: try again
    last = found.judgement;
    await pause('after-judge', path);
    if (found.judgement.held) {
      throw new UpdateError(
        'LOCKED',
        `another updater holds this state directory (${found.judgement.why})`,
      );
    }
    // Stale (reboot, dead holder, reused PID, or unreadable and old): take it over.
    await breakStale(path, found.text, { facts, pause, hardLinks });
  }
  const why = last === undefined ? '' : ` (${last.why})`;
  throw new UpdateError('LOCKED', `could not take the state-directory lock${why}`);
}
