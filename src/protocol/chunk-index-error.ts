/**
 * Refusals of the chunk index and chunk list parsers (docs/PROTOCOL.md §2.6). The code is
 * stable and carries no secret; the updater maps it onto its own codes.
 */
export type ChunkIndexErrorCode =
  /** The bytes do not follow the format (length, magic, bounds, sums, grouping rule). */
  | 'CHUNK_INDEX_MALFORMED'
  /** The bytes do not hash to the digest that signs them (signed entry or parent node). */
  | 'CHUNK_INDEX_MISMATCH'
  /** The index describes another artifact than the signed entry (size or SHA-256). */
  | 'CHUNK_INDEX_WRONG_ARTIFACT';

export class ChunkIndexError extends Error {
  override readonly name = 'ChunkIndexError';
  constructor(
    readonly code: ChunkIndexErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Throws CHUNK_INDEX_MALFORMED: the bytes do not follow the format. */
export function malformed(message: string): never {
  throw new ChunkIndexError('CHUNK_INDEX_MALFORMED', message);
}
