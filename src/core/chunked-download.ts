/**
 * The second half of the chunked download path (docs/UPDATER.md §9): assemble the new blob
 * from a plan (chunked-plan.ts) out of verified local chunks and verified fetched ranges,
 * resuming from the durable record of an earlier run, and check the whole SHA-256 at the end.
 */
import { createHash } from 'node:crypto';
import {
  CHUNK_ENTRY_BYTES,
  entryHash,
  entrySpan,
  sliceSection,
  type Section,
} from '../protocol/chunk-index.js';
import type { ChunkOp } from './chunk-delta-plan.js';
import type { ChunkedPartial } from './chunk-ports.js';
import {
  blobSources,
  rangeContext,
  type ChunkedContext,
  type ChunkedPlan,
} from './chunked-plan.js';
import { UpdateError } from './errors.js';
import { fetchPieces } from './range-fetch.js';

export interface ApplyHooks {
  /** Artifact bytes now in place (resumed, copied and fetched). */
  readonly onHave: (bytes: number) => void;
}

/** Held chunks are copied in runs of consecutive bytes of one blob, up to this size. */
const COPY_BYTES = 1024 * 1024;

type LocalOp = Extract<ChunkOp, { kind: 'local' }>;
type SingleOp = Exclude<ChunkOp, LocalOp>;

/** One chunk of a held run: where it goes and where it comes from. */
interface HeldChunk {
  readonly op: LocalOp;
  readonly index: number;
  readonly offset: number;
  readonly from: number;
  readonly length: number;
}

/** The chunks of the local ops not yet in the partial, in artifact order. */
function* heldChunks(ops: readonly ChunkOp[], done: ReadonlyMap<number, number>) {
  for (const op of ops) {
    if (op.kind !== 'local') continue;
    let at = 0;
    for (let i = 0; i < op.from.chunks.count; i++) {
      const length = entrySpan(op.from.chunks, i);
      const chunk: HeldChunk = {
        op,
        index: i,
        offset: op.offset + at,
        from: op.from.offset + at,
        length,
      };
      at += length;
      if (done.get(chunk.offset) !== chunk.length) yield chunk;
    }
  }
}

/** The level 0 entries of one fetched or repeated chunk. */
function singleChunk(op: SingleOp): Section {
  const bytes = new Uint8Array(CHUNK_ENTRY_BYTES);
  new DataView(bytes.buffer).setUint32(0, op.length);
  bytes.set(op.sha256, 4);
  return { level: 0, count: 1, bytes };
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
  let sinceGc = 0;
  const put = async (offset: number, bytes: Uint8Array, chunks: Section) => {
    await partial.write(offset, bytes, chunks);
    have += bytes.length;
    hooks.onHave(have);
    sinceGc += bytes.length;
    if (sinceGc >= COPY_BYTES && ctx.collectGarbage !== undefined) {
      sinceGc = 0;
      ctx.collectGarbage();
    }
  };
  try {
    for (const [offset, length] of partial.verified) {
      if (offset + length <= artifact.size) have += length;
    }
    hooks.onHave(have);
    const pending = (op: SingleOp): boolean => partial.verified.get(op.offset) !== op.length;
    const fetch: SingleOp[] = [];
    for (const op of plan.delta.ops) if (op.kind === 'fetch' && pending(op)) fetch.push(op);
    fetch.push(...(await copyHeld(ctx, heldChunks(plan.delta.ops, partial.verified), put)));
    const sources = blobSources(ctx, artifact.url, artifact.sha256);
    await fetchPieces(
      rangeContext(ctx, artifact, sources, artifact.size, what),
      fetch,
      (op, bytes) => put(op.offset, bytes, singleChunk(op)),
    );
    for (const op of plan.delta.ops) {
      if (op.kind !== 'repeat' || !pending(op)) continue;
      const bytes = await partial.read(op.sourceOffset, op.length);
      if (!sha256Equals(bytes, op.sha256)) {
        throw new UpdateError('HASH_MISMATCH', `${what}: a repeated chunk changed`);
      }
      await put(op.offset, bytes, singleChunk(op));
    }
    await partial.complete();
  } catch (error) {
    await closeQuietly(partial);
    throw error;
  }
  const { params, fanoutBits } = plan.index;
  // Best effort: without the cache the next delta reads the blob once to learn its chunks.
  await ctx.chunks
    .rememberTree(artifact.sha256, levelZero(plan.delta.ops), artifact.size, params, fanoutBits)
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

/**
 * Copies held chunks in runs of up to 1 MiB (one read, one write per run, one reused buffer);
 * every chunk is re-hashed first. Answers the chunks that did not verify (a held blob damaged
 * on disk): they are fetched instead.
 */
async function copyHeld(
  ctx: ChunkedContext,
  chunks: Iterable<HeldChunk>,
  put: (offset: number, bytes: Uint8Array, chunks: Section) => Promise<void>,
): Promise<SingleOp[]> {
  const buffer = new Uint8Array(COPY_BYTES);
  const refetch: SingleOp[] = [];
  let run: HeldChunk[] = [];
  let runBytes = 0;
  const flush = async (): Promise<void> => {
    const first = run[0];
    if (first === undefined) return;
    const bytes = await ctx.chunks
      .readBlob(first.op.from.blob, first.from, buffer.subarray(0, runBytes))
      .catch(() => new Uint8Array(0));
    let good: HeldChunk[] = [];
    let goodAt = 0;
    const writeGood = async (): Promise<void> => {
      const head = good[0];
      if (head === undefined) return;
      const length = good.reduce((n, c) => n + c.length, 0);
      const entries = good.map((c) => sliceSection(c.op.from.chunks, c.index, 1).bytes);
      const section = { level: 0, count: good.length, bytes: Buffer.concat(entries) };
      await put(head.offset, bytes.subarray(goodAt, goodAt + length), section);
      good = [];
    };
    let at = 0;
    for (const c of run) {
      const piece = bytes.subarray(at, at + c.length);
      const sha256 = entryHash(c.op.from.chunks, c.index);
      if (piece.length === c.length && sha256Equals(piece, sha256)) {
        if (good.length === 0) goodAt = at;
        good.push(c);
      } else {
        await writeGood();
        refetch.push({ kind: 'fetch', offset: c.offset, length: c.length, sha256 });
      }
      at += c.length;
    }
    await writeGood();
    run = [];
    runBytes = 0;
  };
  for (const c of chunks) {
    const last = run[run.length - 1];
    const follows =
      last !== undefined &&
      last.op.from.blob === c.op.from.blob &&
      last.from + last.length === c.from &&
      last.offset + last.length === c.offset &&
      runBytes + c.length <= COPY_BYTES;
    if (!follows) await flush();
    run.push(c);
    runBytes += c.length;
  }
  await flush();
  return refetch;
}

async function closeQuietly(partial: ChunkedPartial): Promise<void> {
  try {
    await partial.close();
  } catch {
    // The first failure is what the run reports; the record on disk stays consistent.
  }
}

function sha256Equals(bytes: Uint8Array, expected: Uint8Array): boolean {
  return createHash('sha256').update(bytes).digest().equals(expected);
}
