/**
 * The first half of the chunked download path (docs/UPDATER.md §9): for an artifact whose
 * signed entry names a chunk index, fetch and verify the index, then plan against the chunks
 * already held, fetching only the chunk list sections on the paths to what is missing. The
 * plan is what `check` reports; assemble.ts assembles the blob from it.
 *
 * When the index cannot be had or verified from any source, planning answers `undefined` and
 * the caller keeps the whole-file path: an index only saves bytes, it is never needed.
 */
import { ChunkIndexError } from '#protocol/chunk-index-error.js';
import { parseChunkIndex, parseSection } from '#protocol/chunk-index-parse.js';
import { layoutOf, type ChunkIndex } from '#protocol/chunk-index.js';
import {
  MAX_CHUNK_INDEX_BYTES,
  resolveArtifactUrl,
  type ManifestArtifact,
} from '#protocol/manifest.js';
import { planChunkDelta, type DeltaPlan } from './tree-diff.js';
import type { ChunkStore } from './chunk-ports.js';
import { UpdateError } from '../errors.js';
import { errorForResponse } from '../transfer/index.js';
import { startGet, type HttpContext } from '../transfer/index.js';
import type { Random } from '../ports.js';
import { fetchPieces, type SourceFailure } from './range-fetch.js';

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

/** One plain GET of a small blob (an index or a whole chunk list), refused past `maxBytes`. */
export async function fetchSmallBlob(
  ctx: ChunkedContext,
  url: URL,
  what: string,
  maxBytes = MAX_CHUNK_INDEX_BYTES,
): Promise<Uint8Array> {
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
      if (size > maxBytes) throw new UpdateError('SIZE_MISMATCH', `${what}: too long`);
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

/**
 * A chunk source that failed: reported (`onSourceFailure`) and passed over, so the next source
 * or the whole-file path is tried; an abort of the run is thrown instead.
 */
function sourceFailed(
  ctx: ChunkedContext,
  artifact: ManifestArtifact,
  url: string,
  error: unknown,
): void {
  if (ctx.signal.aborted) throw new UpdateError('ABORTED', 'aborted', { cause: error });
  const code = error instanceof ChunkIndexError || error instanceof UpdateError ? error.code : 'IO';
  ctx.onSourceFailure?.({ artifact: artifact.name, url, code: code as SourceFailure['code'] });
}

/** Fetches and verifies the index from the first source that serves it correctly. */
export async function loadIndex(
  ctx: ChunkedContext,
  artifact: ManifestArtifact,
): Promise<{ readonly index: ChunkIndex; readonly bytes: Uint8Array } | undefined> {
  const ref = artifact.chunk_index;
  if (ref === undefined) return undefined;
  const what = `chunk index of ${artifact.name}`;
  for (const url of blobSources(ctx, ref.url, ref.sha256)) {
    try {
      const bytes = await fetchSmallBlob(ctx, url, what);
      const index = parseChunkIndex(bytes, ref, artifact);
      return { index, bytes };
    } catch (error) {
      sourceFailed(ctx, artifact, url.href, error);
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
  const local = await ctx.chunks.localChunks(index.params, layoutOf(index));
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
      metadataBytes: loaded.bytes.length + delta.sectionBytes,
    };
  } catch (error) {
    sourceFailed(ctx, artifact, ref.list_url ?? ref.url, error);
    return undefined;
  }
}

/** The range-fetch context of one resource of `artifact` (its chunk list, or itself). */
export function rangeContext(
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
