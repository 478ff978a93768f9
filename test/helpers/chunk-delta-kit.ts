/**
 * Pieces for chunked-download tests: a state directory holding promoted blobs, the server's
 * blobs copied under an nginx root (what `artifact_base_url` expects), and one chunked
 * download run through the updater's own modules with the real node:http fetcher.
 */
import { chmod, copyFile, mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseEndpoint } from '#core/transfer/endpoint.js';
import { applyChunked } from '#core/chunks/assemble.js';
import { planChunked, type ChunkedPlan } from '#core/chunks/fetch-index.js';
import { resolveLimits } from '#core/limits.js';
import type { SourceFailure } from '#core/chunks/range-fetch.js';
import { FileChunkStore } from '#node/blobs/chunk-store.js';
import { createHttpFetcher } from '#node/http/http-fetcher.js';
import { systemClock, systemRandom, systemTimers } from '#node/node-ports.js';
import { BLOB_MTIME_S } from '#node/blobs/intact-blob.js';
import type { ManifestArtifact } from '#protocol/manifest.js';
import { sha256Hex } from './hostile-server.js';
import { FAST_LIMITS } from './updater-harness.js';

/** Creates DIR/.updater/{blobs,partial} holding `contents` as promoted blobs. */
export async function stateWithBlobs(dir: string, contents: readonly Uint8Array[]) {
  const blobs = join(dir, '.updater', 'blobs');
  await mkdir(blobs, { recursive: true });
  await mkdir(join(dir, '.updater', 'partial'), { recursive: true });
  for (const content of contents) {
    const path = join(blobs, sha256Hex(content));
    await writeFile(path, content);
    await chmod(path, 0o444);
    await utimes(path, BLOB_MTIME_S, BLOB_MTIME_S);
  }
  return blobs;
}

/** Copies the blobs an entry names (artifact, index, list) from the server's data directory. */
export async function copyEntryBlobs(dataDir: string, entry: ManifestArtifact, to: string) {
  await mkdir(to, { recursive: true });
  const digests = [entry.sha256];
  if (entry.chunk_index !== undefined) {
    digests.push(entry.chunk_index.sha256);
    const list = entry.chunk_index.list_url?.split('/').pop();
    if (list !== undefined) digests.push(list);
  }
  for (const sha of digests) {
    await copyFile(join(dataDir, 'blobs', sha.slice(0, 2), sha), join(to, sha));
  }
}

export interface ChunkedRun {
  readonly plan: ChunkedPlan | undefined;
  readonly failures: (SourceFailure & { artifact: string })[];
  readonly networkBytes: number;
  /** The promoted blob's bytes (undefined when the plan was refused). */
  readonly blob: Uint8Array | undefined;
}

export async function runChunked(options: {
  readonly dir: string;
  readonly baseUrl: string;
  readonly machineKey?: string;
  readonly artifact: ManifestArtifact;
  readonly mirrors?: readonly string[];
  readonly onRecorded?: () => void;
  /** Runs between planning and assembly (a test damages a held blob there). */
  readonly beforeApply?: () => Promise<void>;
}): Promise<ChunkedRun> {
  const meta = join(options.dir, '.updater');
  const limits = resolveLimits(FAST_LIMITS);
  const failures: (SourceFailure & { artifact: string })[] = [];
  let networkBytes = 0;
  const base = new URL(options.baseUrl);
  const ctx = {
    http: {
      fetcher: createHttpFetcher({ connectTimeoutMs: limits.connectTimeoutMs }),
      clock: systemClock,
      timers: systemTimers,
      limits,
      endpoint: parseEndpoint(options.baseUrl, options.machineKey ?? 'mk_test'),
      userAgent: 'chunk-delta-test',
    },
    random: systemRandom,
    signal: new AbortController().signal,
    baseUrl: base,
    mirrors: (options.mirrors ?? []).map((m) => new URL(m)),
    chunks: new FileChunkStore({
      blobDir: join(meta, 'blobs'),
      partialDir: join(meta, 'partial'),
      cacheDir: join(meta, 'chunks'),
      ...(options.onRecorded === undefined ? {} : { onRecorded: options.onRecorded }),
    }),
    onSourceFailure: (f: SourceFailure & { artifact: string }) => failures.push(f),
    onNetworkBytes: (n: number) => {
      networkBytes += n;
    },
  };
  const plan = await planChunked(ctx, options.artifact);
  if (plan === undefined) return { plan, failures, networkBytes, blob: undefined };
  await options.beforeApply?.();
  await applyChunked(ctx, plan, { onHave: () => undefined });
  const blob = await readFile(join(meta, 'blobs', options.artifact.sha256));
  return { plan, failures, networkBytes, blob };
}
