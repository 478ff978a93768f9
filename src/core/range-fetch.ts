/**
 * Fetches verified pieces of a content-addressed resource with HTTP Range requests
 * (docs/UPDATER.md §9, docs/PROTOCOL.md §2.6). Pieces are coalesced into ranges; each piece is
 * hashed the moment its last byte arrives and handed on only if it matches its signed SHA-256,
 * so no unverified byte ever leaves this module. A piece that does not match ends that
 * response at once: the pieces not yet received are asked again from the next source (the
 * signed URL first, then the mirrors), and only they are. Transient failures are retried on
 * the same source first (retry.ts); a source that answers wrongly is skipped.
 */
import { createHash } from 'node:crypto';
import { coalesceRanges, type CoalesceRule, type Piece } from './chunk-ranges.js';
import { toUpdateError, UpdateError } from './errors.js';
import { errorForResponse } from './http-errors.js';
import { startGet, type HttpContext } from './http-get.js';
import type { Random } from './ports.js';
import { withRetries } from './retry.js';

export interface VerifiedPiece extends Piece {
  /** The SHA-256 the piece's bytes must have. */
  readonly sha256: Uint8Array;
}

/** Why a source was left for the next one: a tampered piece or a failed exchange. */
export interface SourceFailure {
  readonly url: string;
  readonly code: UpdateError['code'];
  /** The piece that failed verification, when that was the cause. */
  readonly piece?: Piece;
}

export interface RangeFetchContext {
  readonly http: HttpContext;
  readonly random: Random;
  readonly signal: AbortSignal;
  /** The resource's URLs in order of preference (the signed URL, then the mirrors). */
  readonly sources: readonly URL[];
  /** Exact size of the resource (checked against Content-Range). */
  readonly resourceSize: number;
  /** For messages: "artifact a.bin", "chunk list of a.bin". */
  readonly what: string;
  readonly rule?: CoalesceRule;
  readonly onNetworkBytes?: (count: number) => void;
  readonly onSourceFailure?: (failure: SourceFailure) => void;
  readonly throttle?: (count: number, signal: AbortSignal) => Promise<void>;
}

const CONTENT_RANGE = /^bytes (\d+)-(\d+)\/(\d+|\*)$/;

/** A piece whose bytes did not hash to its signed digest: never retried on the same source. */
class PieceRefused extends UpdateError {
  constructor(what: string) {
    super('HASH_MISMATCH', `${what}: a piece does not match its signed SHA-256`);
  }
}

/**
 * Fetches every piece and calls `onPiece` with its verified bytes, in resource order within
 * each range; ranges run `http.limits.parallel` at a time. Rejects with the first failure
 * that no source could overcome (HASH_MISMATCH when every source served a piece wrongly).
 */
export async function fetchPieces<P extends VerifiedPiece>(
  ctx: RangeFetchContext,
  pieces: readonly P[],
  onPiece: (piece: P, bytes: Uint8Array) => Promise<void>,
): Promise<void> {
  if (ctx.sources.length === 0) throw new UpdateError('CONFIG_INVALID', `${ctx.what}: no source`);
  const ranges = coalesceRanges(pieces, ctx.rule);
  const controller = new AbortController();
  const signal = AbortSignal.any([ctx.signal, controller.signal]);
  let firstError: UpdateError | undefined;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (firstError === undefined && next < ranges.length) {
      const range = ranges[next++];
      if (range === undefined) return;
      try {
        await fetchRange(ctx, signal, range.pieces, onPiece);
      } catch (error) {
        // Never rethrow from a worker: siblings must stop before the call settles.
        if (firstError === undefined) {
          firstError = toUpdateError(error);
          controller.abort();
        }
      }
    }
  };
  const workers = Math.max(1, Math.min(ctx.http.limits.parallel, ranges.length));
  await Promise.all(Array.from({ length: workers }, worker));
  if (firstError !== undefined) throw firstError;
  if (ctx.signal.aborted) throw new UpdateError('ABORTED', 'aborted');
}

/** One coalesced range: source after source until every piece arrived verified. */
async function fetchRange<P extends VerifiedPiece>(
  ctx: RangeFetchContext,
  signal: AbortSignal,
  pieces: readonly P[],
  onPiece: (piece: P, bytes: Uint8Array) => Promise<void>,
): Promise<void> {
  let remaining = pieces;
  let done = 0;
  const deliver = async (piece: P, bytes: Uint8Array): Promise<void> => {
    await onPiece(piece, bytes);
    done++;
  };
  // A piece is given up on once it failed verification from every source (and twice at least).
  const strikes = new Map<P, number>();
  const maxStrikes = Math.max(2, ctx.sources.length);
  let lastError: UpdateError | undefined;
  for (let turn = 0; ; turn++) {
    if (turn >= ctx.sources.length * maxStrikes)
      throw lastError ?? new UpdateError('IO', 'no source');
    const source = ctx.sources[turn % ctx.sources.length] as URL;
    try {
      await withRetries(
        { limits: ctx.http.limits, timers: ctx.http.timers, random: ctx.random, signal },
        () => receiveRange(ctx, signal, source, remaining.slice(done), deliver),
      );
      return;
    } catch (error) {
      if (signal.aborted) throw new UpdateError('ABORTED', 'aborted', { cause: error });
      lastError = toUpdateError(error);
      if (error instanceof PieceRefused) {
        const piece = remaining[done] as P;
        const count = (strikes.get(piece) ?? 0) + 1;
        strikes.set(piece, count);
        ctx.onSourceFailure?.({ url: source.href, code: 'HASH_MISMATCH', piece });
        if (count >= maxStrikes) throw lastError;
      } else {
        ctx.onSourceFailure?.({ url: source.href, code: lastError.code });
      }
      remaining = remaining.slice(done);
      done = 0;
    }
  }
}

/** One exchange for `pieces` (sorted, one coalesced range); `onPiece` counts deliveries. */
async function receiveRange<P extends VerifiedPiece>(
  ctx: RangeFetchContext,
  signal: AbortSignal,
  url: URL,
  pieces: readonly P[],
  onPiece: (piece: P, bytes: Uint8Array) => Promise<void>,
): Promise<void> {
  const first = pieces[0] as P;
  const last = pieces[pieces.length - 1] as P;
  const start = first.offset;
  const end = last.offset + last.length;
  const what = `${ctx.what} bytes ${start}-${end - 1}`;
  const exchange = await startGet(
    ctx.http,
    url,
    { range: `bytes=${start}-${end - 1}` },
    signal,
    what,
  );
  const { response } = exchange;
  let delivered = 0;
  try {
    if (response.status !== 206) {
      if (response.status === 200) {
        // The server ignored Range: never read a whole artifact to pick a few chunks from it.
        throw new UpdateError('HTTP_STATUS', `${what}: the server ignored the Range header`);
      }
      throw await errorForResponse(response, what, ctx.http.clock.nowMs());
    }
    const match = CONTENT_RANGE.exec(response.header('content-range') ?? '');
    const total = match?.[3];
    if (
      match === null ||
      Number(match[1]) !== start ||
      Number(match[2]) !== end - 1 ||
      (total !== '*' && Number(total) !== ctx.resourceSize)
    ) {
      throw new UpdateError('SIZE_MISMATCH', `${what}: the server answered another range`);
    }
    const declared = Number(response.header('content-length') ?? Number.NaN);
    if (Number.isFinite(declared) && declared !== end - start) {
      throw new UpdateError('SIZE_MISMATCH', `${what}: ${declared} bytes declared`);
    }
    let pos = start;
    let buffer = new Uint8Array(first.length);
    let filled = 0;
    for await (const chunk of response.body) {
      exchange.watch.bytes(chunk.length);
      ctx.onNetworkBytes?.(chunk.length);
      if (ctx.throttle !== undefined) await ctx.throttle(chunk.length, signal);
      let at = 0;
      while (at < chunk.length) {
        const piece = pieces[delivered];
        if (piece === undefined) throw new UpdateError('SIZE_MISMATCH', `${what}: too many bytes`);
        if (pos < piece.offset) {
          const skip = Math.min(piece.offset - pos, chunk.length - at);
          pos += skip;
          at += skip;
          continue;
        }
        const take = Math.min(piece.length - filled, chunk.length - at);
        buffer.set(chunk.subarray(at, at + take), filled);
        filled += take;
        pos += take;
        at += take;
        if (filled < piece.length) continue;
        const digest = createHash('sha256').update(buffer).digest();
        if (!digest.equals(piece.sha256)) throw new PieceRefused(what);
        await onPiece(piece, buffer);
        delivered++;
        const following = pieces[delivered];
        buffer = new Uint8Array(following?.length ?? 0);
        filled = 0;
      }
    }
    const failure = exchange.finish();
    if (failure !== undefined) throw failure;
    if (delivered < pieces.length) {
      throw new UpdateError('NETWORK', `${what}: ended early`, { transient: true });
    }
  } catch (error) {
    response.discard();
    const mapped = exchange.finish(error);
    throw error instanceof PieceRefused ? error : (mapped ?? error);
  }
}
