/**
 * Chunk deltas inside an update run (docs/UPDATER.md §9): which blobs of a pull are assembled
 * from chunks (fetch-index.ts, against everything the blob store holds), what each artifact
 * then costs (the per-artifact plan of `check` and of the `update-available` event), and the
 * pull of one such blob with the whole-file path as its fallback.
 *
 * A blob is planned only when the entry names a chunk index and the store holds a blob large
 * enough to have been chunked; it is assembled from chunks only when some of them are held.
 * Otherwise nothing about chunks is fetched and the pull is exactly the whole-file one.
 */
import type { ManifestArtifact } from '#protocol/manifest.js';
import { CHUNK_INDEX_MIN_BYTES } from '#protocol/chunk-index.js';
import type { ChunkStore } from './chunk-ports.js';
import { applyChunked } from './assemble.js';
import { planChunked, type ChunkedContext, type ChunkedPlan } from './fetch-index.js';
import { toUpdateError } from '../errors.js';
import type { ArtifactPlan, PlanSummary } from '../events.js';
import type { HttpContext } from '../transfer/index.js';
import type { LocalChunks } from './local-chunks.js';
import type { LocalStore, Logger, Random } from '../ports.js';
import { missingBlobs, type BlobPuller } from '../transfer/index.js';
import { reused } from '../plan/index.js';
import type { UpdaterState } from '../state.js';

/** What the chunked path needs beside the run's own ports. */
export interface ChunkPorts {
  readonly store: ChunkStore;
  /** Base URLs under which any blob `<sha256>` is also served. */
  readonly mirrors?: readonly URL[];
  /** A cheap GC after every 1 MiB copied or fetched (read-buffer-gc.ts). */
  readonly collectGarbage?: () => void;
}

export interface ChunkRun {
  readonly http: HttpContext;
  readonly store: LocalStore;
  readonly random: Random;
  readonly logger: Logger;
  readonly signal: AbortSignal;
  readonly chunks?: ChunkPorts | undefined;
}

/** What a pull will do: the refined summary, the blobs it fetches, the chunk plans it applies. */
export interface PullPlan {
  readonly summary: PlanSummary;
  readonly todo: readonly ManifestArtifact[];
  /** By artifact SHA-256. */
  readonly chunked: ReadonlyMap<string, ChunkedPlan>;
  /** Index and chunk list bytes fetched to plan. */
  readonly planningBytes: number;
}

/** True when the state names a blob big enough to have chunks worth reusing. */
function holdsChunkedBlob(state: UpdaterState): boolean {
  const sets = [state.installed, state.previous];
  return sets.some((set) => set?.artifacts.some((a) => a.size >= CHUNK_INDEX_MIN_BYTES));
}

/** One local chunk index per layout for the whole run (several artifacts share it). */
function sharedLocalChunks(store: ChunkStore): ChunkStore {
  const built = new Map<string, Promise<LocalChunks>>();
  return {
    localChunks(params, layout) {
      const { format, fanoutBits, sectionMin, sectionMax } = layout;
      const key = `${params.minSize}/${params.avgSize}/${params.maxSize}/${format}/${fanoutBits}/${sectionMin}/${sectionMax}`;
      let local = built.get(key);
      if (local === undefined) {
        local = store.localChunks(params, layout);
        built.set(key, local);
      }
      return local;
    },
    rememberTree: (...args) => store.rememberTree(...args),
    keepPublishedTree: (...args) => store.keepPublishedTree(...args),
    readBlob: (...args) => store.readBlob(...args),
    closeReads: () => store.closeReads(),
    openChunkedPartial: (...args) => store.openChunkedPartial(...args),
  };
}

/** The chunked download context of one run (hooks of one artifact added by the caller). */
export function chunkedContext(
  run: ChunkRun,
  ports: ChunkPorts,
  store: ChunkStore,
): ChunkedContext {
  return {
    http: run.http,
    random: run.random,
    signal: run.signal,
    baseUrl: run.http.endpoint.base,
    mirrors: ports.mirrors ?? [],
    chunks: store,
    onSourceFailure: (failure) => run.logger.warn('chunk source skipped', { ...failure }),
    ...(ports.collectGarbage === undefined ? {} : { collectGarbage: ports.collectGarbage }),
  };
}

/**
 * Decides how each blob the store lacks is brought in, and refines `summary` to say so:
 * blobs held already are reused, blobs with held chunks are planned as chunk deltas.
 * `missing`: what the store lacks of `artifacts` (pull.ts `missingBlobs`), when this run has
 * just asked it; otherwise the store is asked here.
 */
export async function planPull(
  run: ChunkRun,
  summary: PlanSummary,
  artifacts: readonly ManifestArtifact[],
  state: UpdaterState,
  missing?: readonly ManifestArtifact[],
): Promise<PullPlan> {
  const todo = missing ?? (await missingBlobs(run.store, artifacts));
  const chunked = new Map<string, ChunkedPlan>();
  let planningBytes = 0;
  const ports = run.chunks;
  if (ports !== undefined && holdsChunkedBlob(state)) {
    const ctx: ChunkedContext = {
      ...chunkedContext(run, ports, sharedLocalChunks(ports.store)),
      onNetworkBytes: (count) => {
        planningBytes += count;
      },
    };
    for (const artifact of todo) {
      if (artifact.chunk_index === undefined) continue;
      const plan = await planChunked(ctx, artifact).catch((error: unknown) => {
        // The held blobs could not be read as chunks: the whole file, never a failed run.
        if (run.signal.aborted) throw error;
        run.logger.warn('chunk planning failed, fetching the whole file', {
          artifact: artifact.name,
          code: toUpdateError(error).code,
        });
        return undefined;
      });
      // Nothing held: the whole file is one plain request, cheaper than ranges.
      if (plan !== undefined && plan.delta.reuseBytes > 0) chunked.set(artifact.sha256, plan);
    }
  }
  return { summary: refine(summary, artifacts, todo, chunked), todo, chunked, planningBytes };
}

/** The summary with each artifact's method and bytes as the pull will really move them. */
function refine(
  summary: PlanSummary,
  artifacts: readonly ManifestArtifact[],
  todo: readonly ManifestArtifact[],
  chunked: ReadonlyMap<string, ChunkedPlan>,
): PlanSummary {
  const missing = new Set(todo.map((a) => a.sha256));
  const counted = new Set<string>();
  const entries = artifacts.map((a): ArtifactPlan => {
    if (!missing.has(a.sha256) || counted.has(a.sha256)) return reused(a);
    counted.add(a.sha256);
    const plan = chunked.get(a.sha256);
    // Literals in reused()'s key order, not a spread of it: one object per artifact, not two,
    // on the way to the first pack request (docs/UPDATER.md §11.3).
    const { name, size } = a;
    if (plan === undefined) {
      return { name, size, method: 'whole', fetchBytes: size, reusedBytes: 0, indexBytes: 0 };
    }
    return {
      name,
      size,
      method: 'chunks',
      fetchBytes: plan.delta.fetchBytes,
      reusedBytes: plan.delta.reuseBytes,
      indexBytes: plan.metadataBytes,
    };
  });
  return {
    ...summary,
    bytesToFetch: entries.reduce((n, e) => n + e.fetchBytes, 0),
    bytesToReuse: entries.reduce((n, e) => n + e.reusedBytes, 0),
    artifacts: entries,
  };
}

/**
 * The pull's hook for one blob: assembles it from its chunk plan and answers true, or answers
 * false (no plan, or the chunked path failed: the whole-file path takes over, so an index or a
 * source that cannot serve ranges costs bytes, never the update).
 */
export function chunkedPuller(
  run: ChunkRun,
  plans: ReadonlyMap<string, ChunkedPlan>,
): BlobPuller | undefined {
  const ports = run.chunks;
  if (ports === undefined || plans.size === 0) return undefined;
  return async (artifact, hooks, signal) => {
    const plan = plans.get(artifact.sha256);
    if (plan === undefined) return false;
    const ctx: ChunkedContext = {
      ...chunkedContext({ ...run, signal }, ports, ports.store),
      onNetworkBytes: hooks.onNetworkBytes,
      ...(hooks.throttle === undefined ? {} : { throttle: hooks.throttle }),
    };
    try {
      await applyChunked(ctx, plan, { onHave: hooks.onHave });
      return true;
    } catch (error) {
      if (signal.aborted) throw error;
      const e = toUpdateError(error);
      run.logger.warn('chunked download failed, fetching the whole file', {
        artifact: artifact.name,
        code: e.code,
        message: e.message,
      });
      hooks.onHave(0);
      return false;
    }
  };
}
