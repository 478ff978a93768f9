/**
 * Pacing of an entry point's young-generation GC on bytes written (src/node/http/read-buffer-gc.ts
 * says why: the HTTP parser's fresh body buffers are external memory V8 frees only at a GC).
 * Pure, so both the whole-file pull (node side) and the chunk assembly (core) share it.
 */

/** An entry point's young-generation GC. */
export type GarbageCollector = () => void;

/** Bytes written between two collections (peak garbage about twice this). */
export const GC_EVERY_BYTES = 1024 * 1024;

/** Calls `collect` once per `everyBytes` reported through the returned function. */
export function gcPacer(
  collect: () => void,
  everyBytes: number = GC_EVERY_BYTES,
): (bytes: number) => void {
  let since = 0;
  return (bytes) => {
    since += bytes;
    if (since < everyBytes) return;
    since = 0;
    collect();
  };
}
