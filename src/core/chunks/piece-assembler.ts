/**
 * The receiving end of a range request (docs/UPDATER.md §9): each piece's bytes are gathered
 * at whatever offsets they arrive (one range, or the parts of a multipart answer), hashed the
 * moment the piece is complete, and handed on only if they match its signed SHA-256.
 */
import { createHash } from 'node:crypto';
import type { Piece } from './coalesce-ranges.js';
import { UpdateError } from '../errors.js';
import type { FetchResponse } from '../ports.js';

export interface VerifiedPiece extends Piece {
  /** The SHA-256 the piece's bytes must have. */
  readonly sha256: Uint8Array;
}

const CONTENT_RANGE = /^bytes (\d+)-(\d+)\/(\d+|\*)$/;

/** A piece whose bytes did not hash to its signed digest: never retried on the same source. */
export class PieceRefused extends UpdateError {
  constructor(what: string) {
    super('HASH_MISMATCH', `${what}: a piece does not match its signed SHA-256`);
  }
}

/**
 * Gathers each piece's bytes from an answer, at whatever offsets they come (one range, or
 * parts of a multipart answer), hashes it the moment it is complete and hands it on.
 */
export class PieceAssembler<P extends VerifiedPiece> {
  delivered = 0;
  /** The piece being gathered across answer chunks; made only when a piece straddles them. */
  private buffer: Uint8Array | undefined;
  private filled = 0;

  constructor(
    private readonly pieces: readonly P[],
    private readonly what: string,
    private readonly deliver: (piece: P, bytes: Uint8Array) => Promise<void>,
  ) {}

  async bytes(offset: number, data: Uint8Array): Promise<void> {
    let pos = offset;
    let at = 0;
    while (at < data.length) {
      const piece = this.pieces[this.delivered];
      if (piece === undefined)
        throw new UpdateError('SIZE_MISMATCH', `${this.what}: too many bytes`);
      const expected = piece.offset + this.filled;
      if (pos < expected) {
        // A gap between ranges, or bytes already had: read and dropped.
        const skip = Math.min(expected - pos, data.length - at);
        pos += skip;
        at += skip;
        continue;
      }
      if (pos > expected) {
        throw new UpdateError('SIZE_MISMATCH', `${this.what}: the answer skips bytes of a piece`);
      }
      const take = Math.min(piece.length - this.filled, data.length - at);
      const slice = data.subarray(at, at + take);
      pos += take;
      at += take;
      let whole = slice;
      if (this.filled > 0 || take < piece.length) {
        // Straddles answer chunks: gathered in a buffer of its own. A piece whole in this chunk
        // (most small pieces) is hashed and handed on as a view of it (docs/UPDATER.md §11.4).
        this.buffer ??= new Uint8Array(piece.length);
        this.buffer.set(slice, this.filled);
        this.filled += take;
        if (this.filled < piece.length) continue;
        whole = this.buffer;
        this.buffer = undefined;
        this.filled = 0;
      }
      const digest = createHash('sha256').update(whole).digest();
      if (!digest.equals(piece.sha256)) throw new PieceRefused(this.what);
      await this.deliver(piece, whole);
      this.delivered++;
    }
  }
}

/** A single-range 206: its Content-Range and Content-Length; answers the first offset. */
export function checkSingleRange(
  response: FetchResponse,
  resourceSize: number,
  what: string,
): number {
  const match = CONTENT_RANGE.exec(response.header('content-range') ?? '');
  const total = match?.[3];
  if (match === null || (total !== '*' && Number(total) !== resourceSize)) {
    throw new UpdateError('SIZE_MISMATCH', `${what}: the server answered another range`);
  }
  const start = Number(match[1]);
  const end = Number(match[2]);
  const declared = Number(response.header('content-length') ?? Number.NaN);
  if (end < start || (Number.isFinite(declared) && declared !== end - start + 1)) {
    throw new UpdateError('SIZE_MISMATCH', `${what}: ${declared} bytes declared`);
  }
  return start;
}
