/**
 * The fallback of a chunked download whose whole SHA-256 did not match (docs/UPDATER.md §9.1
 * "Assemble"): the held chunks were copied unhashed (sweep.ts), so one of them may come
 * from a held blob damaged on disk. Each held chunk is read back from the partial and hashed
 * against the signed index; one that does not match is fetched. The caller then hashes the
 * finished file from disk before promotion, so this pass only repairs, it never vouches.
 */
import { entryHash, entrySpan } from '#protocol/chunk-index.js';
import type { ChunkOp } from './tree-diff.js';
import { COPY_BYTES, sha256Equals, type SweepPorts } from './sweep.js';

/** Chunks re-fetched because their held bytes did not match (for logs and tests). */
export async function recheckHeld(
  ports: SweepPorts,
  ops: readonly ChunkOp[],
  done: (offset: number, length: number) => boolean,
): Promise<number> {
  let refetched = 0;
  for (const op of ops) {
    if (op.kind !== 'local') continue;
    const { chunks } = op.from;
    let i = 0;
    let at = 0;
    while (i < chunks.count) {
      // A block of whole chunks, read back with one call.
      let count = 0;
      let length = 0;
      while (i + count < chunks.count) {
        const next = entrySpan(chunks, i + count);
        if (count > 0 && length + next > COPY_BYTES) break;
        length += next;
        count++;
      }
      const bytes = await ports.partial.read(op.offset + at, length);
      let within = 0;
      for (let c = i; c < i + count; c++) {
        const span = entrySpan(chunks, c);
        const offset = op.offset + at + within;
        const sha256 = entryHash(chunks, c);
        const piece = bytes.subarray(within, within + span);
        if (!done(offset, span) && (piece.length !== span || !sha256Equals(piece, sha256))) {
          await ports.refetch({ kind: 'fetch', offset, length: span, sha256 });
          refetched++;
        }
        within += span;
      }
      i += count;
      at += length;
    }
  }
  return refetched;
}
