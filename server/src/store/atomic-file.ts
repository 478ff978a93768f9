/**
 * Atomic file writes: a temporary file in the same directory, fsync, rename, then fsync of the
 * directory, so a crash leaves either the old or the new content, never half of one
 * (STYLE.md habit 5).
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** A temporary path next to `target` (same directory, so rename is atomic). */
export function tempPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
}

/** Writes `data` to `target` atomically with the given file mode. */
export async function writeFileAtomic(
  target: string,
  data: Uint8Array | string,
  mode = 0o644,
): Promise<void> {
  const temp = tempPathFor(target);
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  await commitTemp(temp, target);
}

/** Renames a synced temporary file onto `target` and syncs the directory entry. */
export async function commitTemp(temp: string, target: string): Promise<void> {
  try {
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await syncDir(dirname(target));
}

/** fsync of a directory makes a rename durable; some platforms refuse it, which is harmless. */
async function syncDir(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // Windows cannot open directories; the rename itself is still atomic there.
  } finally {
    await handle?.close();
  }
}

/** Writes `value` as JSON atomically. */
export async function writeJsonAtomic(target: string, value: unknown, mode = 0o644): Promise<void> {
  await writeFileAtomic(target, `${JSON.stringify(value, null, 2)}\n`, mode);
}
