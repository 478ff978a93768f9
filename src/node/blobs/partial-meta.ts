/**
 * The HTTP validator of a partial download (docs/UPDATER.md §3, Resume): `<sha256>.meta` beside
 * its `.part`, `{"validator": "<ETag or Last-Modified>"}`, which a resume sends as If-Range so
 * a changed file is fetched whole rather than spliced. Read only when there are bytes to resume
 * (partial-open.ts); written with the first bytes that reach the disk and removed once the
 * blob is promoted or discarded (partial-blob.ts). Never trusted: the digest decides, so it is
 * written without fsync.
 */
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readNoFollow } from '../fs/index.js';

/** `<partialDir>/<sha256>.meta`. */
export function metaPathOf(partialDir: string, sha256: string): string {
  return join(partialDir, `${sha256}.meta`);
}

/** The validator in the file at `path`; undefined when there is none, or none that parses. */
export async function readValidator(path: string): Promise<string | undefined> {
  try {
    const json = JSON.parse((await readNoFollow(path))?.toString('utf8') ?? '') as {
      validator?: unknown;
    };
    return typeof json.validator === 'string' ? json.validator : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Makes the file at `path` hold `validator` (undefined: removes it). Written whole then
 * renamed, so a kill leaves the old or the new one; no fsync: a lost or stale validator only
 * costs a re-fetch (a resume without If-Range is checked by the digest like any other).
 */
export async function writeValidator(path: string, validator: string | undefined): Promise<void> {
  if (validator === undefined) {
    await rm(path, { force: true });
    return;
  }
  const temp = `${path}.tmp`;
  await writeFile(temp, JSON.stringify({ validator }));
  await rename(temp, path);
}
