/**
 * The second half of the chunked download path (docs/UPDATER.md §9): assemble the new blob
 * from a plan (fetch-index.ts): first the missing chunks as verified ranges, then one pass in
 * artifact order (sweep.ts) that copies the held chunks and hashes the whole file,
 * resuming from the durable record of an earlier run; the whole SHA-256 is checked before the
 * blob is promoted.
 */
import { CHUNK_ENTRY_BYTES, layoutOf, type Section } from '#protocol/chunk-index.js';
import type { ChunkOp } from './tree-diff.js';
import type { ChunkedPartial } from './chunk-ports.js';
import { recheckHeld } from './recheck.js';
import { singleChunk, sweep, type SingleOp, type SweepPorts } from './sweep.js';
import { blobSources, rangeContext, type ChunkedContext, type ChunkedPlan } from './fetch-index.js';
import { gcPacer } from '../transfer/index.js';
import { fetchPieces } from './range-fetch.js';

export interface ApplyHooks {
  /** Artifact bytes now in place (resumed, copied and fetched). */
  readonly onHave: (bytes: number) => void;
}

/** Assembles the artifact into the blob store following `plan`. */
export async function applyChunked(
  ctx: ChunkedContext,
  plan: ChunkedPlan,
  hooks: ApplyHooks,
): Promise<void> {
  const { artifact } = plan;
  const what = `artifact ${artifact.name}`;
  const partial = await ctx.chunks.openChunkedPartial(artifact, plan.indexSha256);
  let have = 0;
  const put = async (offset: number, bytes: Uint8Array, chunks: Section) => {
    await partial.write(offset, bytes, chunks);
    have += bytes.length;
    hooks.onHave(have);
  };
  // Paced on fetched bytes only: they arrive in fresh buffers of the HTTP parser, while the
  // copy of held chunks reuses its buffers and leaves little garbage (§9.1 Memory), so a minor
  // GC per MiB copied would cost CPU for nothing (docs/UPDATER.md §10.8).
  const paceGc = ctx.collectGarbage === undefined ? undefined : gcPacer(ctx.collectGarbage);
  const fetchPut = async (op: SingleOp, bytes: Uint8Array) => {
    await put(op.offset, bytes, singleChunk(op));
    paceGc?.(bytes.length);
  };
  try {
    have += resumedBytes(partial, artifact.size);
    hooks.onHave(have);
    const done = (offset: number, length: number): boolean =>
      partial.verified.get(offset) === length;
    const fetch = missingFetches(plan.delta.ops, done);
    const sources = blobSources(ctx, artifact.url, artifact.sha256);
    const range = rangeContext(ctx, artifact, sources, artifact.size, what);
    await fetchPieces(range, fetch, fetchPut);
    const fetched = new Set(fetch.map((op) => op.offset));
    const ports: SweepPorts = {
      chunks: ctx.chunks,
      partial,
      put,
      refetch: (op) => fetchPieces(range, [op], fetchPut),
      what,
    };
    const verified = (offset: number, length: number): boolean =>
      done(offset, length) || fetched.has(offset);
    const digest = await sweep(ports, plan.delta.ops, verified);
    if (digest === artifact.sha256) {
      await partial.complete(digest);
    } else {
      // A held blob gave other bytes than its facts promise: re-check its chunks against the
      // signed index, fetch the bad ones, and hash the finished file from disk (§9.1).
      await recheckHeld(ports, plan.delta.ops, verified);
      await partial.complete();
    }
  } catch (error) {
    await closeQuietly(partial);
    throw error;
  } finally {
    await ctx.chunks.closeReads().catch(() => undefined);
  }
  await rememberNewTree(ctx, plan);
}

/** Bytes of the artifact an earlier run already verified and recorded durably. */
function resumedBytes(partial: ChunkedPartial, size: number): number {
  let have = 0;
  for (const [offset, length] of partial.verified) {
    if (offset + length <= size) have += length;
  }
  return have;
}

/** The plan's fetches not yet done by an earlier run, in artifact order. */
function missingFetches(
  ops: readonly ChunkOp[],
  done: (offset: number, length: number) => boolean,
): SingleOp[] {
  const fetch: SingleOp[] = [];
  for (const op of ops) {
    if (op.kind === 'fetch' && !done(op.offset, op.length)) fetch.push(op);
  }
  return fetch;
}

/** Caches the new blob's tree; best effort: without it the next delta reads the blob once. */
async function rememberNewTree(ctx: ChunkedContext, plan: ChunkedPlan): Promise<void> {
  const { artifact } = plan;
  await ctx.chunks
    .rememberTree(
      artifact.sha256,
      levelZero(plan.delta.ops),
      artifact.size,
      plan.index.params,
      layoutOf(plan.index),
    )
    .catch(() => undefined);
}

/** The new artifact's chunks as one level 0 section (held runs' entries are copied as is). */
function levelZero(ops: readonly ChunkOp[]): Section {
  let count = 0;
  for (const op of ops) count += op.kind === 'local' ? op.from.chunks.count : 1;
  const bytes = new Uint8Array(count * CHUNK_ENTRY_BYTES);
  let at = 0;
  for (const op of ops) {
    const entries = op.kind === 'local' ? op.from.chunks.bytes : singleChunk(op).bytes;
    bytes.set(entries, at);
    at += entries.length;
  }
  return { level: 0, count, bytes };
}

async function closeQuietly(partial: ChunkedPartial): Promise<void> {
  try {
    await partial.close();
  } catch {
    // The first failure is what the run reports; the record on disk stays consistent.
  }
}
