/**
 * The chunked download path (docs/UPDATER.md §9): for an artifact whose signed entry names a
 * chunk index, fetch and verify the index, plan against the chunks already held, then
 * assemble the new blob from verified local chunks and verified fetched ranges, resuming
 * from the durable record of an earlier run, and check the whole SHA-256 at the end.
 *
 * `planChunked` is the first half (also what `check` reports); `applyChunked` the second.
 * When the index cannot be had or verified from any source, planning answers `undefined` and
 * the caller keeps the whole-file path: an index only saves bytes, it is never needed.
 */
import { parseChunkIndex } from '../protocol/chunk-index-parse.js';
import { ChunkIndexError } from '../protocol/chunk-index-error.js';
import { parseSection } from '../protocol/chunk-index-parse.js';
import {
  CHUNK_ENTRY_BYTES,
  entryHash,
  entrySpan,
  sliceSection,
  type ChunkIndex,
  type Section,
} from '../protocol/chunk-index.js';
import {
  MAX_CHUNK_INDEX_BYTES,
  resolveArtifactUrl,
  type ManifestArtifact,
} from '../protocol/manifest.js';
import { planChunkDelta, type ChunkOp, type DeltaPlan } from './chunk-delta-plan.js';
import type { ChunkStore, ChunkedPartial } from './chunk-ports.js';
import { UpdateError } from './errors.js';
import { errorForResponse } from './http-errors.js';
import { startGet, type HttpContext } from './http-get.js';
import type { Random } from './ports.js';
import { fetchPieces, type SourceFailure } from './range-fetch.js';
import { createHash } from 'node:crypto';

export interface ChunkedContext {
  readonly http: HttpContext;
  readonly random: Random;
  readonly signal: AbortSignal;
  readonly baseUrl: URL;
  /** Base URLs under which any blob `<sha256>` is also served (docs/UPDATER.md §9). */
  readonly mirrors: readonly URL[];
  readonly chunks: ChunkStore;
  /** Why a source was skipped or an index refused (logged, and counted by tests). */
  readonly onSourceFailure?: (failure: SourceFailure & { readonly artifact: string }) => void;
  readonly onNetworkBytes?: (count: number) => void;
  readonly throttle?: (count: number, signal: AbortSignal) => Promise<void>;
  /**
   * A cheap young-generation GC, run after every 1 MiB copied or fetched (read-buffer-gc.ts:
   * the CLI passes one so peak RSS stays low; V8 otherwise frees read buffers late).
   */
  readonly collectGarbage?: () => void;
}

export interface ChunkedPlan {
  readonly artifact: ManifestArtifact;
  readonly indexSha256: string;
  readonly index: ChunkIndex;
  readonly delta: DeltaPlan;
  /** Index and chunk list bytes fetched to plan. */
  readonly metadataBytes: number;
}

/** The signed URL first, then `<mirror>/<sha256>` for each mirror. */
export function blobSources(ctx: ChunkedContext, url: string, sha256: string): URL[] {
  const primary = resolveArtifactUrl(ctx.baseUrl.href, url);
  const mirrors = ctx.mirrors.map((m) => new URL(sha256, m.href.endsWith('/') ? m : `${m.href}/`));
  return [primary, ...mirrors.filter((m) => m.href !== primary.href)];
}

async function fetchIndexBytes(ctx: ChunkedContext, url: URL, what: string): Promise<Uint8Array> {
  const exchange = await startGet(ctx.http, url, {}, ctx.signal, what);
  const { response } = exchange;
  try {
    if (response.status !== 200)
      throw await errorForResponse(response, what, ctx.http.clock.nowMs(), exchange.safeUrl);
    const parts: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      exchange.watch.bytes(chunk.length);
      ctx.onNetworkBytes?.(chunk.length);
      size += chunk.length;
      if (size > MAX_CHUNK_INDEX_BYTES) throw new UpdateError('SIZE_MISMATCH', `${what}: too long`);
      parts.push(chunk);
    }
    const failure = exchange.finish();
    if (failure !== undefined) throw failure;
    return Buffer.concat(parts);
  } catch (error) {
    response.discard();
    throw exchange.finish(error) ?? error;
  }
}

/** Fetches and verifies the index from the first source that serves it correctly. */
async function loadIndex(ctx: ChunkedContext, artifact: ManifestArtifact) {
  const ref = artifact.chunk_index;
  if (ref === undefined) return undefined;
  const what = `chunk index of ${artifact.name}`;
  for (const url of blobSources(ctx, ref.url, ref.sha256)) {
    try {
      const bytes = await fetchIndexBytes(ctx, url, what);
      const index = parseChunkIndex(bytes, ref, artifact);
      return { index, bytes: bytes.length };
    } catch (error) {
      if (ctx.signal.aborted) throw new UpdateError('ABORTED', 'aborted', { cause: error });
      const code =
        error instanceof ChunkIndexError || error instanceof UpdateError ? error.code : 'IO';
      ctx.onSourceFailure?.({
        artifact: artifact.name,
        url: url.href,
        code: code as SourceFailure['code'],
      });
    }
  }
  return undefined;
}

/**
 * Plans an artifact's chunked download, or answers undefined (no index, or none verified:
 * the whole-file path applies). Fetches only the index and the chunk list sections needed.
 */
export async function planChunked(
  ctx: ChunkedContext,
  artifact: ManifestArtifact,
): Promise<ChunkedPlan | undefined> {
  const ref = artifact.chunk_index;
  const loaded = await loadIndex(ctx, artifact);
  if (ref === undefined || loaded === undefined) return undefined;
  const { index } = loaded;
  const local = await ctx.chunks.localChunks(index.params, index.fanoutBits);
  const listSources =
    ref.list_url === undefined || index.listSha256 === undefined
      ? []
      : blobSources(ctx, ref.list_url, index.listSha256);
  try {
    const delta = await planChunkDelta(index, local, async (requests) => {
      if (listSources.length === 0) {
        throw new ChunkIndexError(
          'CHUNK_INDEX_MALFORMED',
          'the index needs a chunk list, the entry names none',
        );
      }
      const bytes = new Map<number, Uint8Array>();
      const pieces = requests.map((r) => ({
        offset: r.offset,
        length: r.length,
        sha256: r.node.sha256,
      }));
      await fetchPieces(
        {
          ...rangeContext(
            ctx,
            artifact,
            listSources,
            index.listSize,
            `chunk list of ${artifact.name}`,
          ),
        },
        pieces,
        (piece, data) => {
          bytes.set(piece.offset, Uint8Array.from(data));
          return Promise.resolve();
        },
      );
      return requests.map((r) =>
        parseSection(bytes.get(r.offset) as Uint8Array, r.node, r.level, r.endsArtifact, index),
      );
    });
    return {
      artifact,
      indexSha256: ref.sha256,
      index,
      delta,
      metadataBytes: loaded.bytes + delta.sectionBytes,
    };
  } catch (error) {
    if (ctx.signal.aborted) throw new UpdateError('ABORTED', 'aborted', { cause: error });
    const code =
      error instanceof ChunkIndexError || error instanceof UpdateError ? error.code : 'IO';
    ctx.onSourceFailure?.({
      artifact: artifact.name,
      url: ref.list_url ?? ref.url,
      code: code as SourceFailure['code'],
    });
    return undefined;
  }
}

function rangeContext(
  ctx: ChunkedContext,
  artifact: ManifestArtifact,
  sources: readonly URL[],
  resourceSize: number,
  what: string,
) {
  return {
    http: ctx.http,
    random: ctx.random,
    signal: ctx.signal,
    sources,
    resourceSize,
    what,
    onSourceFailure: (f: SourceFailure) => ctx.onSourceFailure?.({ ...f, artifact: artifact.name }),
    ...(ctx.onNetworkBytes === undefined ? {} : { onNetworkBytes: ctx.onNetworkBytes }),
    ...(ctx.throttle === undefined ? {} : { throttle: ctx.throttle }),
  };
}

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
