/**
 * Fetches verified pieces of a content-addressed resource with HTTP Range requests
 * (docs/UPDATER.md §9, docs/PROTOCOL.md §2.6): up to 32 ranges per request, answered as
 * multipart/byteranges, or one range per request from a source that ignores several (it is
 * remembered for the rest of the call). Pieces are coalesced into ranges; each piece is
 * hashed the moment its last byte arrives and handed on only if it matches its signed SHA-256,
 * so no unverified byte ever leaves this module. A piece that does not match ends that
 * response at once: the pieces not yet received are asked again from the next source (the
 * signed URL first, then the mirrors), and only they are. Transient failures are retried on
 * the same source first (retry.ts); a source that answers wrongly is skipped.
 */
import {
  coalesceRanges,
  type CoalesceRule,
  type Piece,
  type PlannedRange,
} from './coalesce-ranges.js';
import { toUpdateError, UpdateError } from '../errors.js';
import { errorForResponse } from '../transfer/index.js';
import { startGet, type Exchange, type HttpContext } from '../transfer/index.js';
import { linkedAbort } from '../transfer/index.js';
import { ByterangesReader, byterangesBoundary } from './multipart-ranges.js';
import {
  checkSingleRange,
  PieceAssembler,
  PieceRefused,
  type VerifiedPiece,
} from './piece-assembler.js';
import type { Random } from '../ports.js';
import { withRetries } from '../transfer/index.js';

export type { VerifiedPiece } from './piece-assembler.js';

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

/** Most ranges asked in one request (a Range header of about 1 KiB). */
export const MAX_RANGES_PER_REQUEST = 32;
/** Most bytes asked in one request, so a long run still spreads over the connections. */
const MAX_BATCH_BYTES = 8 * 1024 * 1024;

/** The source answered a multi-range request with the whole blob: it takes one range a time. */
class RangesIgnored extends UpdateError {
  constructor() {
    super('HTTP_STATUS', 'several ranges answered with the whole blob');
  }
}

/**
 * Fetches every piece and calls `onPiece` with its verified bytes, in resource order within
 * each request; requests run `http.limits.parallel` at a time. Rejects with the first failure
 * that no source could overcome (HASH_MISMATCH when every source served a piece wrongly).
 */
export async function fetchPieces<P extends VerifiedPiece>(
  ctx: RangeFetchContext,
  pieces: readonly P[],
  onPiece: (piece: P, bytes: Uint8Array) => Promise<void>,
): Promise<void> {
  if (ctx.sources.length === 0) throw new UpdateError('CONFIG_INVALID', `${ctx.what}: no source`);
  const batches = batchesOf(coalesceRanges(pieces, ctx.rule));
  const singleOnly = new Set<string>();
  const link = linkedAbort(ctx.signal);
  const signal = link.signal;
  let firstError: UpdateError | undefined;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (firstError === undefined && next < batches.length) {
      const batch = batches[next++];
      if (batch === undefined) return;
      try {
        await fetchBatch(ctx, signal, batch, onPiece, singleOnly);
      } catch (error) {
        // Never rethrow from a worker: siblings must stop before the call settles.
        if (firstError === undefined) {
          firstError = toUpdateError(error);
          link.abort();
        }
      }
    }
  };
  const workers = Math.max(1, Math.min(ctx.http.limits.parallel, batches.length));
  await Promise.all(Array.from({ length: workers }, worker));
  link.dispose();
  if (firstError !== undefined) throw firstError;
  if (ctx.signal.aborted) throw new UpdateError('ABORTED', 'aborted');
}

/** Consecutive ranges grouped into requests of at most 32 ranges and 8 MiB; their pieces. */
function batchesOf<P extends Piece>(ranges: readonly PlannedRange<P>[]): P[][] {
  const batches: P[][] = [];
  let batch: P[] = [];
  let count = 0;
  let bytes = 0;
  for (const range of ranges) {
    const size = range.end - range.start;
    if (count > 0 && (count >= MAX_RANGES_PER_REQUEST || bytes + size > MAX_BATCH_BYTES)) {
      batches.push(batch);
      batch = [];
      count = 0;
      bytes = 0;
    }
    batch.push(...range.pieces);
    count++;
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/** One batch: request after request, source after source, until every piece arrived verified. */
async function fetchBatch<P extends VerifiedPiece>(
  ctx: RangeFetchContext,
  signal: AbortSignal,
  pieces: readonly P[],
  onPiece: (piece: P, bytes: Uint8Array) => Promise<void>,
  singleOnly: Set<string>,
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
  let failures = 0;
  let lastError: UpdateError | undefined;
  for (let turn = 0; done < remaining.length;) {
    if (failures >= ctx.sources.length * maxStrikes) {
      throw lastError ?? new UpdateError('IO', 'no source');
    }
    const source = ctx.sources[turn % ctx.sources.length] as URL;
    try {
      await withRetries(
        { limits: ctx.http.limits, timers: ctx.http.timers, random: ctx.random, signal },
        () => receive(ctx, signal, source, remaining.slice(done), deliver, singleOnly),
      );
      continue;
    } catch (error) {
      if (signal.aborted) throw new UpdateError('ABORTED', 'aborted', { cause: error });
      if (error instanceof RangesIgnored) {
        singleOnly.add(source.href);
        continue;
      }
      failures++;
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
      turn++;
    }
  }
}

/**
 * One request for `pieces` (sorted): their ranges in one multipart request, or only the first
 * range when the source takes one range at a time. Delivers what the answer holds.
 */
async function receive<P extends VerifiedPiece>(
  ctx: RangeFetchContext,
  signal: AbortSignal,
  url: URL,
  pieces: readonly P[],
  deliver: (piece: P, bytes: Uint8Array) => Promise<void>,
  singleOnly: ReadonlySet<string>,
): Promise<void> {
  const all = coalesceRanges(pieces, ctx.rule);
  const ranges = singleOnly.has(url.href) ? all.slice(0, 1) : all.slice(0, MAX_RANGES_PER_REQUEST);
  const asked = ranges.flatMap((r) => r.pieces);
  const header = ranges.map((r) => `${r.start}-${r.end - 1}`).join(',');
  const what = `${ctx.what} bytes ${header}`;
  const exchange = await startGet(ctx.http, url, { range: `bytes=${header}` }, signal, ctx.what);
  const { response } = exchange;
  const assembler = new PieceAssembler(asked, what, deliver);
  try {
    await refuseUnlessPartial(exchange, ranges.length, what, ctx.http);
    const boundary = byterangesBoundary(response.header('content-type'));
    if (boundary !== undefined) {
      const reader = new ByterangesReader(boundary, ctx.resourceSize, (at, bytes) =>
        assembler.bytes(at, bytes),
      );
      for await (const chunk of response.body) {
        exchange.watch.bytes(chunk.length);
        ctx.onNetworkBytes?.(chunk.length);
        if (ctx.throttle !== undefined) await ctx.throttle(chunk.length, signal);
        await reader.push(chunk);
      }
      if (!reader.done)
        throw new UpdateError('NETWORK', `${what}: ended early`, { transient: true });
    } else {
      const start = checkSingleRange(response, ctx.resourceSize, what);
      let at = start;
      for await (const chunk of response.body) {
        exchange.watch.bytes(chunk.length);
        ctx.onNetworkBytes?.(chunk.length);
        if (ctx.throttle !== undefined) await ctx.throttle(chunk.length, signal);
        await assembler.bytes(at, chunk);
        at += chunk.length;
      }
    }
    const failure = exchange.finish();
    if (failure !== undefined) throw failure;
    if (assembler.delivered === 0) {
      throw new UpdateError('NETWORK', `${what}: the answer ended before a piece`, {
        transient: true,
      });
    }
    // An answer with fewer ranges than asked (a server that takes one range at a time, or a
    // connection cut between parts) is not an error: the caller asks again for the rest.
  } catch (error) {
    response.discard();
    const mapped = exchange.finish(error);
    if (error instanceof PieceRefused || error instanceof RangesIgnored) throw error;
    throw mapped ?? error;
  }
}

/**
 * Throws unless the answer is 206: RangesIgnored for a 200 to several ranges (the caller asks
 * one at a time), a refusal for a 200 to one, the status's error otherwise.
 */
async function refuseUnlessPartial(
  exchange: Exchange,
  rangeCount: number,
  what: string,
  http: HttpContext,
): Promise<void> {
  const { response } = exchange;
  if (response.status === 200 && rangeCount > 1) throw new RangesIgnored();
  if (response.status === 206) return;
  if (response.status === 200) {
    // The server ignored Range: never read a whole artifact to pick a few chunks from it.
    throw new UpdateError('HTTP_STATUS', `${what}: the server ignored the Range header`, {
      details: { url: exchange.safeUrl, status: response.status },
    });
  }
  throw await errorForResponse(response, what, http.clock.nowMs(), exchange.safeUrl);
}
