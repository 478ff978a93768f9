/**
 * Brings every blob a manifest needs into the store: missing digests only, `limits.parallel`
 * at a time, each with retries for transient failures. The first refusal aborts the others
 * (their partial bytes stay on disk for a later resume) and is what the run reports.
 */
import type { ManifestArtifact } from '../protocol/manifest.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import { ArtifactUrls } from './artifact-url.js';
import { downloadArtifact, type DownloadHooks } from './download.js';
import { UpdateError } from './errors.js';
import type { HttpContext } from './http-get.js';
import { AbortLane, linkedAbort } from './linked-abort.js';
import type { LocalStore, Logger, Random } from './ports.js';
import { RateLimit } from './rate-limit.js';
import { withRetries, type RetryContext } from './retry.js';
import { fromProtocolError } from './verify.js';

export interface PullContext {
  readonly http: HttpContext;
  readonly store: LocalStore;
  readonly random: Random;
  readonly logger: Logger;
  readonly signal: AbortSignal;
}

export interface PullProgress {
  /** `bytes` verified-in (resumed included); `received` from the network in this run only. */
  (bytes: number, total: number, artifact: string, received: number): void;
}

const HAS_BLOB_PARALLEL = 16;

/** Unique digests of `artifacts` not yet in the store: exactly what a pull fetches (plan.ts). */
export async function missingBlobs(
  store: LocalStore,
  artifacts: readonly ManifestArtifact[],
): Promise<ManifestArtifact[]> {
  const seen = new Set<string>();
  const unique: ManifestArtifact[] = [];
  for (const a of artifacts) {
    if (seen.has(a.sha256)) continue;
    seen.add(a.sha256);
    unique.push(a);
  }
  // Asked HAS_BLOB_PARALLEL at a time: one by one, 10,000 lookups were a second of waiting.
  const have = new Array<boolean>(unique.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < unique.length; i = next++) {
      const a = unique[i] as ManifestArtifact;
      have[i] = await store.hasBlob(a.sha256, a.size);
    }
  };
  await Promise.all(Array.from({ length: Math.min(HAS_BLOB_PARALLEL, unique.length) }, worker));
  return unique.filter((_, i) => have[i] !== true);
}

/**
 * Brings one blob in another way (chunk-pull.ts: from held chunks and ranges) and answers
 * true, or answers false and the whole-file download runs.
 */
export type BlobPuller = (
  artifact: ManifestArtifact,
  hooks: DownloadHooks,
  signal: AbortSignal,
) => Promise<boolean>;

/** Downloads `todo`; resolves to the bytes received from the network. */
export async function pullBlobs(
  ctx: PullContext,
  todo: readonly ManifestArtifact[],
  onProgress: PullProgress,
  pullOther?: BlobPuller,
): Promise<number> {
  const total = todo.reduce((sum, a) => sum + a.size, 0);
  const have = new Map<string, number>();
  let sum = 0;
  let network = 0;
  const link = linkedAbort(ctx.signal);
  const signal = link.signal;
  // Whatever a worker threw first, passed on untouched: the run's boundary types it.
  let firstError: unknown;
  let failed = false;
  let next = 0;
  const cap = new RateLimit(ctx.http.limits.maxBytesPerS, ctx.http.clock, ctx.http.timers);
  const capped = ctx.http.limits.maxBytesPerS > 0;
  const urls = new ArtifactUrls(ctx.http.endpoint.base.href);

  const worker = async (): Promise<void> => {
    const lane = new AbortLane(signal);
    try {
      await work(lane);
    } finally {
      lane.dispose();
    }
  };
  const work = async (lane: AbortLane): Promise<void> => {
    // Built once per download slot, not per artifact: at 10,000 small artifacts the closures
    // were a measurable share of the run (docs/UPDATER.md §8, "Many small artifacts").
    let artifact = todo[0] as ManifestArtifact;
    const hooks: DownloadHooks = {
      lane,
      onHave: (bytes: number): void => {
        sum += bytes - (have.get(artifact.sha256) ?? 0);
        have.set(artifact.sha256, bytes);
        onProgress(sum, total, artifact.name, network);
      },
      onNetworkBytes: (count: number): void => {
        network += count;
      },
      // No cap, no wait: not even an await per chunk.
      ...(capped ? { throttle: (count: number, s: AbortSignal) => cap.take(count, s) } : {}),
    };
    const retry: RetryContext = {
      limits: ctx.http.limits,
      timers: ctx.http.timers,
      random: ctx.random,
      signal,
      onRetry: (error, attempt, delayMs) =>
        ctx.logger.warn('retrying artifact', {
          artifact: artifact.name,
          code: error.code,
          attempt,
          delayMs,
        }),
    };
    while (!failed && next < todo.length) {
      artifact = todo[next++] as ManifestArtifact;
      try {
        if (pullOther !== undefined && (await pullOther(artifact, hooks, signal))) continue;
        // policy.ts already refused a URL that does not resolve; this cannot throw for those.
        const url = urls.resolve(artifact.url);
        await withRetries(retry, () =>
          downloadArtifact(ctx.http, ctx.store, artifact, url, signal, hooks),
        );
      } catch (error) {
        // Never rethrow from a worker: Promise.all would settle while siblings still write.
        if (!failed) {
          failed = true;
          firstError = error instanceof ProtocolError ? fromProtocolError(error) : error;
          link.abort();
        }
      }
    }
  };

  const workers = Math.max(1, Math.min(ctx.http.limits.parallel, todo.length));
  await Promise.all(Array.from({ length: workers }, worker));
  link.dispose();
  // The batch boundary: every blob handed over is promoted before the pull reports it, and no
  // promotion outlives a failed run. A failure found here fails the pull unless one came first.
  try {
    await ctx.store.settleBlobs?.();
  } catch (error) {
    if (!failed) {
      failed = true;
      firstError = error;
    }
  }
  // A sibling's abort is reported as the refusal that caused it.
  if (failed) throw firstError;
  if (ctx.signal.aborted) throw new UpdateError('ABORTED', 'aborted');
  return network;
}
