/**
 * One process per state directory. The lock is a file created with O_EXCL holding our PID;
 * a lock whose PID is no longer alive (the holder was killed) is taken over. A live holder,
 * including this very process, gets LOCKED.
 */
import { open, readFile, unlink } from 'node:fs/promises';
import { UpdateError } from '../core/errors.js';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface LockHandle {
  release(): Promise<void>;
}

async function tryCreate(path: string): Promise<boolean> {
  try {
    const handle = await open(path, 'wx', 0o644);
    try {
      await handle.writeFile(`${process.pid}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new UpdateError('IO', `cannot create the lock file: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** Takes the lock at `path` or throws LOCKED. */
export async function acquireLock(path: string): Promise<LockHandle> {
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await tryCreate(path)) {
      return {
        async release() {
          try {
            const owner = (await readFile(path, 'utf8')).trim();
            if (owner === String(process.pid)) await unlink(path);
          } catch {
            // Already gone: nothing to release.
          }
        },
      };
    }
    let text: string;
    try {
      text = (await readFile(path, 'utf8')).trim();
    } catch {
      continue; // released between our open and read: try again
    }
    const pid = Number(text);
    if (/^\d+$/.test(text) && pid > 0 && isAlive(pid)) {
      throw new UpdateError('LOCKED', `another updater (pid ${pid}) holds this state directory`);
    }
    // Stale (dead holder or unreadable content): take it over.
    await unlink(path).catch(() => undefined);
  }
  throw new UpdateError('LOCKED', 'could not take the state-directory lock');
}
