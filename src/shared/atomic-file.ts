/**
 * Crash-safe file replacement, shared by the updater and the companion server: write a
 * temporary file in the same directory, fsync it, rename(2) it over the target (atomic on
 * POSIX), then fsync the directory so the rename itself is durable. A reader sees the old bytes
 * or the new bytes, never a mix (docs/ARCHITECTURE.md §Habits).
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * fsyncs a directory so renames and creations inside it survive a power cut. Windows cannot
 * open a directory for syncing; there the rename is still atomic, so that one refusal is
 * ignored. Everywhere else a failure is reported: durability is not optional.
 */
export async function fsyncDir(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
  } catch (error) {
    if (process.platform === 'win32') return;
    throw error;
  }
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A hidden temporary path next to `target` (same directory, so the rename is atomic). */
export function tempPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
}

/** `tempPathFor`'s file names: `.<target name>.<12 hex>.tmp`. */
const TEMP_NAME = /^\.(.+)\.[0-9a-f]{12}\.tmp$/;

/** The target name a `tempPathFor` file name was made for, or undefined for any other name. */
export function tempTargetOf(name: string): string | undefined {
  return TEMP_NAME.exec(name)?.[1];
}

/** Renames a synced temporary file onto `target` and syncs the directory entry. */
export async function commitTemp(temp: string, target: string): Promise<void> {
  try {
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await fsyncDir(dirname(target));
}

/**
 * Replaces `path` with `data` atomically and durably, with the given mode (0600 for secrets).
 *
 * @example
 * await writeFileAtomic(join(dir, 'state.json'), bytes);
 */
export async function writeFileAtomic(
  path: string,
  data: Uint8Array | string,
  mode = 0o644,
): Promise<void> {
  await commitTemp(await writeSyncedTemp(path, data, mode), path);
}

/**
 * The first half of writeFileAtomic: `data` in a fresh temporary file next to `target`, synced
 * and closed; `commitTemp` names it. Returns the temporary path.
 */
export async function writeSyncedTemp(
  target: string,
  data: Uint8Array | string,
  mode = 0o644,
): Promise<string> {
  const temp = tempPathFor(target);
  try {
    const handle = await open(temp, 'wx', mode);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return temp;
}

/** Writes `value` as pretty JSON atomically. */
export async function writeJsonAtomic(target: string, value: unknown, mode = 0o644): Promise<void> {
  await writeFileAtomic(target, `${JSON.stringify(value, null, 2)}\n`, mode);
}
