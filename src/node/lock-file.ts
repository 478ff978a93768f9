/**
 * One process per state directory. The lock is a file created with O_EXCL holding
 * "<pid> <start time>"; a lock whose holder is gone (killed with -9, crashed) is taken over.
 * On Linux the start time (/proc/<pid>/stat field 22) tells a reused PID from the holder; a
 * live holder, including this very process, gets LOCKED.
 */
import { readFileSync } from 'node:fs';
import { open, readFile, unlink } from 'node:fs/promises';
import { UpdateError } from '../core/errors.js';

/** The kernel's start time of `pid` in clock ticks, or undefined off Linux or when gone. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) may contain spaces and parentheses: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19];
  } catch {
    return undefined;
  }
}

function isAlive(pid: number, startTime: string | undefined): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const now = processStartTime(pid);
  // Same PID, different start time: the holder died and the PID was reused.
  return startTime === undefined || now === undefined || now === startTime;
}

export interface LockHandle {
  release(): Promise<void>;
}

function ownContent(): string {
  const start = processStartTime(process.pid);
  return start === undefined ? `${process.pid}\n` : `${process.pid} ${start}\n`;
}

async function tryCreate(path: string, content: string): Promise<boolean> {
  try {
    const handle = await open(path, 'wx', 0o644);
    try {
      await handle.writeFile(content);
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

/** Whether lock-file text names a live holder. */
function holderAlive(text: string): boolean {
  const match = /^(\d+)(?: (\d+))?$/.exec(text.trim());
  const pid = Number(match?.[1] ?? 0);
  return match !== null && pid > 0 && isAlive(pid, match[2]);
}

/**
 * Removes a stale lock, but only the very content that was judged stale, and only while holding
 * `<path>.takeover` (O_EXCL). Without that guard two processes could both judge the old lock
 * stale, and the slower one would unlink the faster one's fresh lock: both would then own DIR.
 */
async function removeStale(path: string, staleText: string): Promise<void> {
  const guard = `${path}.takeover`;
  if (!(await tryCreate(guard, ownContent()))) {
    // Someone else is taking over now; a guard left by a crashed process is cleared.
    const text = await readFile(guard, 'utf8').catch(() => '');
    if (!holderAlive(text)) await unlink(guard).catch(() => undefined);
    return;
  }
  try {
    const now = await readFile(path, 'utf8').catch(() => undefined);
    if (now !== undefined && now.trim() === staleText) await unlink(path);
  } finally {
    await unlink(guard).catch(() => undefined);
  }
}

/** Takes the lock at `path` or throws LOCKED. */
export async function acquireLock(path: string): Promise<LockHandle> {
  const content = ownContent();
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await tryCreate(path, content)) {
      return {
        async release() {
          try {
            if ((await readFile(path, 'utf8')) === content) await unlink(path);
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
    if (holderAlive(text)) {
      const pid = text.split(' ')[0] ?? '?';
      throw new UpdateError('LOCKED', `another updater (pid ${pid}) holds this state directory`);
    }
    // Stale (dead holder, reused PID or unreadable content): take it over.
    await removeStale(path, text);
  }
  throw new UpdateError('LOCKED', 'could not take the state-directory lock');
}
