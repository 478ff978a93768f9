/**
 * Brings every blob a manifest needs into the store: missing digests only, `limits.parallel`
 * at a time, each with retries for transient failures. The first refusal aborts the others
 * (their partial bytes stay on disk for a later resume) and is what the run reports.
 */
import type { ManifestArtifact } from '#protocol/manifest.js';
import { ProtocolError } from '#protocol/protocol-error.js';
import { ArtifactUrls } from './artifact-url.js';
import { downloadArtifact, type DownloadHooks } from './download.js';
import { UpdateError } from '../errors.js';
import type { HttpContext } from './http-get.js';
import { AbortLane, linkedAbort, type LinkedAbort } from './linked-abort.js';
import type { LocalStore, Logger, Random } from '../ports.js';
import { RateLimit } from './rate-limit.js';
import { withRetries, type RetryContext } from './retry.js';
import { fromProtocolError } from '../wire-errors.js';

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

/**
 * Whole-file GETs kept outstanding per connection when the fetcher pipelines them
 * (ports.ts Fetcher.pipelines): the connections stay `limits.parallel`, the download slots
 * become this many times as many, so each connection has the next answers on their way while
 * a body is written (docs/UPDATER.md §8, "Many small artifacts").
 */
const PIPELINE_DEPTH = 4;
// Not eight: that saves CPU on tiny blobs but costs peak RSS (docs/UPDATER.md §10.5).
/**
 * Only blobs up to this size take the extra slots: a GET queued behind others on a connection
 * waits for their bodies under its own stall watch (§5), which small bodies keep short.
 */
const PIPELINE_MAX_BYTES = 256 * 1024;

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
 * Brings one blob in another way (chunks/chunk-step.ts: from held chunks and ranges) and answers
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
  return new Pull(ctx, todo, onProgress, pullOther).run();
}

/** The artifact a download slot is on: read by the slot's hooks, built once per slot. */
interface SlotArtifact {
  artifact: ManifestArtifact;
}

/** One pull's state: the queues, the progress counts, the first failure. */
class Pull {
  private readonly ctx: PullContext;
  private readonly todo: readonly ManifestArtifact[];
  private readonly onProgress: PullProgress;
  private readonly pullOther: BlobPuller | undefined;
  private readonly total: number;
  private readonly have = new Map<string, number>();
  private sum = 0;
  private network = 0;
  private readonly link: LinkedAbort;
  private readonly signal: AbortSignal;
  // Whatever a worker threw first, passed on untouched: the run's boundary types it.
  private firstError: unknown;
  private failed = false;
  private readonly cap: RateLimit;
  private readonly capped: boolean;
  private readonly urls: ArtifactUrls;
  // Blobs any slot may take (small ones the fetcher pipelines) and those only the first
  // `limits.parallel` slots take (the rest), so the extra slots never open a connection.
  private readonly shared: ManifestArtifact[] = [];
  private readonly own: ManifestArtifact[] = [];
  private nextOwn = 0;
  private nextShared = 0;
  // The extra slots start once every blob of `own` is in (or the pull failed): until then at
  // most `limits.parallel` GETs are in flight, each on a connection of its own, so no small GET
  // is pipelined behind a large body, waiting for all of it under its stall watch (§5).
  private ownLeft: number;
  private openExtras = (): void => undefined;
  private readonly extrasMayStart: Promise<void>;
  // A slot's lane links to its connection's group, not to `signal` itself: with the extra
  // slots, one signal would hold more listeners than node's leak warning allows.
  private readonly groups: LinkedAbort[] = [];

  constructor(
    ctx: PullContext,
    todo: readonly ManifestArtifact[],
    onProgress: PullProgress,
    pullOther: BlobPuller | undefined,
  ) {
    this.ctx = ctx;
    this.todo = todo;
    this.onProgress = onProgress;
    this.pullOther = pullOther;
    this.total = todo.reduce((sum, a) => sum + a.size, 0);
    this.link = linkedAbort(ctx.signal);
    this.signal = this.link.signal;
    this.cap = new RateLimit(ctx.http.limits.maxBytesPerS, ctx.http.clock, ctx.http.timers);
    this.capped = ctx.http.limits.maxBytesPerS > 0;
    this.urls = new ArtifactUrls(ctx.http.endpoint.base.href);
    this.sortOut();
    this.ownLeft = this.own.length;
    this.extrasMayStart =
      this.ownLeft === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            this.openExtras = resolve;
          });
  }

  /** Runs the slots, then the batch boundary; resolves to the bytes from the network. */
  async run(): Promise<number> {
    const { ctx } = this;
    const workers = Math.max(1, Math.min(ctx.http.limits.parallel, this.todo.length));
    const extras = Math.min(
      workers * (PIPELINE_DEPTH - 1),
      Math.max(0, this.shared.length - workers),
    );
    for (let i = 0; i < workers; i++) this.groups.push(linkedAbort(this.signal));
    await Promise.all(
      Array.from({ length: workers + extras }, (_, i) => this.slot(i, i >= workers)),
    );
    for (const group of this.groups) group.dispose();
    this.link.dispose();
    // The batch boundary: every blob handed over is promoted before the pull reports it, and no
    // promotion outlives a failed run. A failure found here fails the pull unless one came first.
    try {
      await ctx.store.settleBlobs?.();
    } catch (error) {
      if (!this.failed) {
        this.failed = true;
        this.firstError = error;
      }
    }
    // A sibling's abort is reported as the refusal that caused it.
    if (this.failed) throw this.firstError;
    if (ctx.signal.aborted) throw new UpdateError('ABORTED', 'aborted');
    return this.network;
  }

  /** Puts each blob in `shared` (pipelined by the fetcher) or `own`. */
  private sortOut(): void {
    const fetcher = this.ctx.http.fetcher;
    for (const a of this.todo) {
      const pipelined =
        this.pullOther === undefined &&
        a.size <= PIPELINE_MAX_BYTES &&
        fetcher.pipelines?.(this.urls.resolve(a.url)) === true;
      (pipelined ? this.shared : this.own).push(a);
    }
  }

  private take(extra: boolean): ManifestArtifact | undefined {
    if (!extra && this.nextOwn < this.own.length) return this.own[this.nextOwn++];
    return this.nextShared < this.shared.length ? this.shared[this.nextShared++] : undefined;
  }

  private async slot(slot: number, extra: boolean): Promise<void> {
    const group = this.groups[slot % this.groups.length] as LinkedAbort;
    const lane = new AbortLane(group.signal);
    try {
      await this.work(lane, extra, group.signal);
    } finally {
      lane.dispose();
    }
  }

  /** One download slot: takes blobs until none is left or the pull failed. */
  private async work(lane: AbortLane, extra: boolean, slotSignal: AbortSignal): Promise<void> {
    // Built once per download slot, not per artifact: at 10,000 small artifacts the closures
    // were a measurable share of the run (docs/UPDATER.md §8, "Many small artifacts").
    const on: SlotArtifact = { artifact: this.todo[0] as ManifestArtifact };
    const hooks = this.slotHooks(lane, on);
    const retry = this.slotRetry(on, slotSignal);
    const { ctx, pullOther, signal } = this;
    if (extra) await this.extrasMayStart;
    for (;;) {
      const fromOwn = !extra && this.nextOwn < this.own.length;
      const a = this.take(extra);
      if (this.failed || a === undefined) break;
      const artifact = a;
      on.artifact = artifact;
      try {
        if (pullOther !== undefined && (await pullOther(artifact, hooks, signal))) continue;
        // policy.ts already refused a URL that does not resolve; this cannot throw for those.
        const url = this.urls.resolve(artifact.url);
        await withRetries(retry, () =>
          downloadArtifact(ctx.http, ctx.store, artifact, url, signal, hooks),
        );
      } catch (error) {
        this.fail(error);
      } finally {
        if (fromOwn && --this.ownLeft === 0) this.openExtras();
      }
    }
  }

  /** The first failure aborts the others; never rethrown from a worker (see work). */
  private fail(error: unknown): void {
    // Never rethrow from a worker: Promise.all would settle while siblings still write.
    if (this.failed) return;
    this.failed = true;
    this.firstError = error instanceof ProtocolError ? fromProtocolError(error) : error;
    this.link.abort();
    this.openExtras();
  }

  private slotHooks(lane: AbortLane, on: SlotArtifact): DownloadHooks {
    return {
      lane,
      onHave: (bytes: number): void => {
        const { artifact } = on;
        this.sum += bytes - (this.have.get(artifact.sha256) ?? 0);
        this.have.set(artifact.sha256, bytes);
        this.onProgress(this.sum, this.total, artifact.name, this.network);
      },
      onNetworkBytes: (count: number): void => {
        this.network += count;
      },
      // No cap, no wait: not even an await per chunk.
      ...(this.capped
        ? { throttle: (count: number, s: AbortSignal) => this.cap.take(count, s) }
        : {}),
    };
  }

  private slotRetry(on: SlotArtifact, slotSignal: AbortSignal): RetryContext {
    const { ctx } = this;
    return {
      limits: ctx.http.limits,
      timers: ctx.http.timers,
      random: ctx.random,
      // The wait between tries listens on the slot's group (aborted exactly when `signal` is),
      // not on `signal`: with every slot waiting at once, that was more listeners on one signal
      // than node's leak warning allows (MaxListenersExceededWarning).
      signal: slotSignal,
      onRetry: (error, attempt, delayMs) =>
        ctx.logger.warn('retrying artifact', {
          artifact: on.artifact.name,
          code: error.code,
          attempt,
          delayMs,
        }),
    };
  }
}
