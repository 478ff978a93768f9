/**
 * What marks a verified blob on disk (docs/UPDATER.md §3, Durability): read-only, its signed
 * size, and a sentinel mtime that no ordinary write leaves. A leaf module, so the writers
 * (partial-blob.ts, whole-blob.ts, chunked-partial.ts) and the readers (blob-facts.ts,
 * tree-scan.ts, chunk-store.ts, commit-journal.ts) share it without an import cycle.
 */

/** mtime (epoch seconds) of every verified blob; see `isIntactBlob`. */
export const BLOB_MTIME_S = 1_000_000_000;

/** A blob still as promoted: regular file, signed size, untouched sentinel mtime. */
export function isIntactBlob(
  info: { isFile(): boolean; size: number; mtimeMs: number },
  size: number,
): boolean {
  return info.isFile() && info.size === size && info.mtimeMs === BLOB_MTIME_S * 1000;
}
