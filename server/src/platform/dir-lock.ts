/**
 * A lock file that several processes on one data directory agree on (docs/SERVER.md §One
 * publisher at a time): made with O_EXCL, holding the owner's pid and start time, removed when
 * the work ends. A lock whose owner is gone (killed with -9) is stale and taken over; a lock
 * that cannot be read (torn by a crash while it was written) is stale once older than
 * `graceMs`. PIDs are reused, so a lock of a dead owner whose pid now belongs to another
 * process stays held until that process ends or the file is removed.
 */
import { open, readFile, rm, stat } from 'node:fs/promises';

export interface LockOwner {
  readonly pid: number;
  readonly started_at: string;
}

/** Thrown when another live process holds the lock. */
export class LockHeld extends Error {
  override readonly name = 'LockHeld';
  constructor(
    readonly path: string,
    readonly owner: LockOwner | undefined,
  ) {
    super(`${path} is held${owner === undefined ? '' : ` by pid ${owner.pid}`}`);
  }
}

/** True while a process with this pid exists (EPERM: it exists, owned by someone else). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const o = JSON.parse(text) as Partial<LockOwner>;
    if (typeof o.pid === 'number' && Number.isSafeInteger(o.pid) && o.pid > 0) {
      return { pid: o.pid, started_at: String(o.started_at) };
    }
  } catch {
    // Torn or foreign: judged by its age below.
  }
  return undefined;
}

/** Takes the lock at `path` or throws LockHeld; resolves with its release. */
export async function takeLock(path: string, graceMs = 5_000): Promise<() => Promise<void>> {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const handle = await open(path, 'wx', 0o600);
      const owner: LockOwner = { pid: process.pid, started_at: new Date().toISOString() };
      try {
        await handle.writeFile(`${JSON.stringify(owner)}\n`);
      } catch (error) {
        // A lock that could not be written (a full disk) must not stay behind, held by no one.
        await handle.close();
        await rm(path, { force: true });
        throw error;
      }
      await handle.close();
      return () => rm(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await readFile(path, 'utf8').then(parseOwner, () => undefined);
    if (owner !== undefined && (owner.pid === process.pid || pidAlive(owner.pid))) {
      throw new LockHeld(path, owner);
    }
    if (owner === undefined) {
      const age = await stat(path).then(
        (s) => Date.now() - s.mtimeMs,
        () => graceMs,
      );
      if (age < graceMs) throw new LockHeld(path, undefined);
    }
    // Stale: its owner is gone. Removed once; a second loss means someone else took it.
    await rm(path, { force: true });
  }
  throw new LockHeld(path, undefined);
}
