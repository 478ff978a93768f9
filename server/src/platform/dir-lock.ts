/**
 * A lock file that several processes on one data directory agree on (docs/SERVER.md §One
 * publisher at a time), holding the owner's pid and start time, removed when the work ends.
 * The record is written whole to a file of the owner's own and then hard-linked into place,
 * which fails if the lock exists: so the lock never exists torn, and a kill -9 at any moment
 * leaves either no lock or a whole one (file systems without hard links make it with O_EXCL
 * and write it after). A lock whose owner is gone (killed with -9) is stale and taken over; a
 * lock that cannot be read (written by O_EXCL and torn by a crash) is stale once older than
 * `graceMs`. PIDs are reused, so a lock of a dead owner whose pid now belongs to another
 * process stays held until that process ends or the file is removed.
 */
import { link, open, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

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

/** Calls of this process so far: each writes its record to a file of its own. */
let calls = 0;

/** The owner's own file the record is written to before it is linked into place. */
const tempOf = (path: string): string =>
  join(dirname(path), `.${basename(path)}.${process.pid}-${(calls += 1)}.tmp`);

/** Removes the record files that owners killed before linking them left (pids not alive). */
async function removeDeadTemps(path: string): Promise<void> {
  const prefix = `.${basename(path)}.`;
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const pid = Number(name.slice(prefix.length, -'.tmp'.length).split('-')[0]);
    if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && !pidAlive(pid)) {
      await rm(join(dirname(path), name), { force: true });
    }
  }
}

/** Link errors of a file system without hard links: the lock is then made with O_EXCL. */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

/** Makes the lock holding `record`; false when it exists. */
async function makeLock(path: string, record: string): Promise<boolean> {
  const temp = tempOf(path);
  await writeFile(temp, record, { mode: 0o600 });
  try {
    await link(temp, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'EEXIST') return false;
    if (!NO_LINKS.has(code)) throw error;
  } finally {
    await rm(temp, { force: true });
  }
  return makeExclusive(path, record);
}

/** The lock made with O_EXCL, then written (it is torn if the process dies in between). */
async function makeExclusive(path: string, record: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.writeFile(record);
  } catch (error) {
    // A lock that could not be written (a full disk) must not stay behind, held by no one.
    await handle.close();
    await rm(path, { force: true });
    throw error;
  }
  await handle.close();
  return true;
}

/** Takes the lock at `path` or throws LockHeld; resolves with its release. */
export async function takeLock(path: string, graceMs = 5_000): Promise<() => Promise<void>> {
  await removeDeadTemps(path);
  const owner: LockOwner = { pid: process.pid, started_at: new Date().toISOString() };
  const record = `${JSON.stringify(owner)}\n`;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    if (await makeLock(path, record)) return () => rm(path, { force: true });
    const held = await readFile(path, 'utf8').then(parseOwner, () => undefined);
    if (held !== undefined && (held.pid === process.pid || pidAlive(held.pid))) {
      throw new LockHeld(path, held);
    }
    if (held === undefined) {
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
