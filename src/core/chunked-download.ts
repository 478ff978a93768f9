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
import type { ChunkIndex } from '../protocol/chunk-index.js';
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
      throw await errorForResponse(response, what, ctx.http.clock.nowMs());
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

/** Local chunks are copied in runs of consecutive bytes of one held blob, up to this size. */
const LOCAL_RUN_BYTES = 4 * 1024 * 1024;

type LocalOp = Extract<ChunkOp, { kind: 'local' }>;

/** Consecutive local ops that read consecutive bytes of the same held blob. */
function localRuns(ops: readonly ChunkOp[]): LocalOp[][] {
  const runs: LocalOp[][] = [];
  let run: LocalOp[] = [];
  let bytes = 0;
  for (const op of ops) {
    if (op.kind !== 'local') continue;
    const last = run[run.length - 1];
    const follows =
      last !== undefined &&
      last.from.blob === op.from.blob &&
      last.from.offset + last.length === op.from.offset &&
      last.offset + last.length === op.offset &&
      bytes + op.length <= LOCAL_RUN_BYTES;
    if (!follows && run.length > 0) {
      runs.push(run);
      run = [];
      bytes = 0;
    }
    run.push(op);
    bytes += op.length;
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/** Assembles the artifact into the blob store following `plan`. */
export async function applyChunked(
  ctx: ChunkedContext,
  plan: ChunkedPlan,
  hooks: ApplyHooks,
): Promise<void> {
  const { artifact } = plan;
  const partial = await ctx.chunks.openChunkedPartial(artifact, plan.indexSha256);
  let have = 0;
  const put = async (offset: number, bytes: Uint8Array, chunks: readonly ChunkOp[]) => {
    await partial.write(offset, bytes, chunks);
    have += bytes.length;
    hooks.onHave(have);
  };
  try {
    const todo = plan.delta.ops.filter((op) => {
      const done = partial.verified.get(op.offset) === op.length;
      if (done) have += op.length;
      return !done;
    });
    hooks.onHave(have);
    const fetch: ChunkOp[] = todo.filter((op) => op.kind === 'fetch');
    const runs = localRuns(todo);
    // One buffer for every run: a long copy allocates nothing (peak RSS).
    const buffer = new Uint8Array(LOCAL_RUN_BYTES);
    for (const run of runs) fetch.push(...(await copyRun(ctx, run, buffer, put)));
    const sources = blobSources(ctx, artifact.url, artifact.sha256);
    const what = `artifact ${artifact.name}`;
    await fetchPieces(rangeContext(ctx, artifact, sources, artifact.size, what), fetch, (op, b) =>
      put(op.offset, b, [op]),
    );
    for (const op of todo) {
      if (op.kind !== 'repeat') continue;
      const bytes = await partial.read(op.sourceOffset, op.length);
      if (!sha256Equals(bytes, op.sha256)) {
        throw new UpdateError('HASH_MISMATCH', `${what}: a repeated chunk changed`);
      }
      await put(op.offset, bytes, [op]);
    }
    await partial.complete();
  } catch (error) {
    await closeQuietly(partial);
    throw error;
  }
  const chunks = plan.delta.ops.map((op) => ({ length: op.length, sha256: op.sha256 }));
  const { params, fanoutBits } = plan.index;
  // Best effort: without the cache the next delta reads the blob once to learn its chunks.
  await ctx.chunks
    .rememberTree(artifact.sha256, chunks, artifact.size, params, fanoutBits)
    .catch(() => undefined);
}

/**
 * Copies a run of held chunks with one read and one write; every chunk is re-hashed first.
 * Answers the chunks that did not verify (a held blob damaged on disk): they are fetched.
 */
async function copyRun(
  ctx: ChunkedContext,
  run: readonly LocalOp[],
  buffer: Uint8Array,
  put: (offset: number, bytes: Uint8Array, chunks: readonly ChunkOp[]) => Promise<void>,
): Promise<ChunkOp[]> {
  const first = run[0] as LocalOp;
  const total = run.reduce((n, op) => n + op.length, 0);
  const bytes = await ctx.chunks
    .readBlob(first.from.blob, first.from.offset, buffer.subarray(0, total))
    .catch(() => new Uint8Array(0));
  const refetch: ChunkOp[] = [];
  let good: LocalOp[] = [];
  let goodStart = 0;
  const flush = async (): Promise<void> => {
    if (good.length === 0) return;
    const length = good.reduce((n, op) => n + op.length, 0);
    await put((good[0] as LocalOp).offset, bytes.subarray(goodStart, goodStart + length), good);
    good = [];
  };
  let at = 0;
  for (const op of run) {
    const piece = bytes.subarray(at, at + op.length);
    if (piece.length === op.length && sha256Equals(piece, op.sha256)) {
      if (good.length === 0) goodStart = at;
      good.push(op);
    } else {
      await flush();
      refetch.push({ kind: 'fetch', offset: op.offset, length: op.length, sha256: op.sha256 });
    }
    at += op.length;
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
