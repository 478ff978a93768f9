/**
 * Nothing a publish leaves behind outlives it (docs/SERVER.md §One publisher at a time): the
 * blobs a failed publish stored and no stored release refers to are removed at once, and at
 * start-up the temporary files and unreferenced blobs an earlier crash left are removed. Run
 * only under the publish lock, so no other publisher's files are in flight. A blob is
 * "referenced" when its digest appears in any stored release or format 1 envelope (artifacts,
 * chunk indexes and chunk lists are all named by digest there), so a sweep can only err on the
 * side of keeping a blob.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

const DIGEST = /[0-9a-f]{64}/g;
const SHA_NAME = /^[0-9a-f]{64}$/;

/** The digests named by the release envelopes in `dirs` (decoded payloads and raw text). */
export async function referencedDigests(dirs: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const dir of dirs) {
    for (const entry of await listOrEmpty(dir)) {
      if (!entry.endsWith('.json') || entry.startsWith('.')) continue;
      const text = await readFile(join(dir, entry), 'utf8');
      const payload = (JSON.parse(text) as { payload?: unknown }).payload;
      const decoded =
        typeof payload === 'string' ? Buffer.from(payload, 'base64').toString('utf8') : '';
      for (const m of `${text}\n${decoded}`.matchAll(DIGEST)) found.add(m[0]);
    }
  }
  return found;
}

export interface SweepResult {
  /** Blobs removed. */
  readonly blobs: number;
  /** Temporary files removed. */
  readonly temps: number;
}

/**
 * Removes from the blob store under `root` every blob not in `keep` (only those in `only`,
 * when given) and, with `temps`, every temporary file (`.*.tmp`) in `root` and `tempDirs`.
 */
export async function sweep(
  root: string,
  keep: ReadonlySet<string>,
  options: { only?: ReadonlySet<string>; tempDirs?: readonly string[] } = {},
): Promise<SweepResult> {
  let blobs = 0;
  let temps = 0;
  const doTemps = options.tempDirs !== undefined;
  for (const entry of await listOrEmpty(root)) {
    if (doTemps && isTemp(entry)) {
      await rm(join(root, entry), { force: true });
      temps += 1;
      continue;
    }
    if (!/^[0-9a-f]{2}$/.test(entry)) continue;
    for (const name of await listOrEmpty(join(root, entry))) {
      const orphan = SHA_NAME.test(name) && !keep.has(name) && (options.only?.has(name) ?? true);
      if (orphan || (doTemps && isTemp(name))) {
        await rm(join(root, entry, name), { force: true });
        if (orphan) blobs += 1;
        else temps += 1;
      }
    }
  }
  for (const dir of options.tempDirs ?? []) {
    for (const entry of await listOrEmpty(dir)) {
      if (!isTemp(entry)) continue;
      await rm(join(dir, entry), { force: true });
      temps += 1;
    }
  }
  return { blobs, temps };
}

function isTemp(name: string): boolean {
  return name.startsWith('.') && name.endsWith('.tmp');
}

async function listOrEmpty(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
