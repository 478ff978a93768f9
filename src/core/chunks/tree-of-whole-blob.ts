/**
 * The chunk tree of a blob fetched whole (docs/UPDATER.md §9.1): when an artifact whose signed
 * entry names a chunk index was pulled as a whole file, its published index and chunk list are
 * fetched in the same run, checked against the signed digest, and cached as the local tree of
 * that blob. The next delta then never reads the blob to learn its chunks; the bytes are paid
 * once, at install time, next to the whole file.
 *
 * Safe although the tree comes from the network and not from the bytes on disk: a local tree
 * only says where to look. A held chunk is used only where its SHA-256 (or the digest of a
 * whole subtree's section, which fixes every entry below it) equals the new index's, each one
 * is re-hashed against that value when copied (sweep.ts) and re-fetched if it differs,
 * and the whole SHA-256 is checked before promotion. An index that lies about the old blob
 * costs re-fetches of the chunks it lied about, never a wrong byte.
 */
import { createHash } from 'node:crypto';
import { readWholeTree } from '#protocol/chunk-index-parse.js';
import { CHUNK_INDEX_MIN_BYTES, layoutOf, type ChunkIndex } from '#protocol/chunk-index.js';
import type { ManifestArtifact } from '#protocol/manifest.js';
import { chunkedContext, type ChunkRun } from './chunk-step.js';
import { blobSources, fetchSmallBlob, loadIndex, type ChunkedContext } from './fetch-index.js';
import { toUpdateError, UpdateError } from '../errors.js';

/**
 * A chunk list longer than this (an artifact of about 13 GiB at the default layout, index
 * format 2) is not fetched at install time: the tree is then learned by reading the blob when
 * first needed.
 */
export const MAX_KEPT_LIST_BYTES = 32 * 1024 * 1024;

/** The whole chunk list from the first source whose bytes match the index's digest. */
async function fetchList(
  ctx: ChunkedContext,
  artifact: ManifestArtifact,
  index: ChunkIndex,
): Promise<Uint8Array> {
  const listUrl = artifact.chunk_index?.list_url;
  const sha256 = index.listSha256;
  if (sha256 === undefined) return new Uint8Array(0);
  if (listUrl === undefined) {
    throw new UpdateError('HASH_MISMATCH', 'the index needs a chunk list, the entry names none');
  }
  const what = `chunk list of ${artifact.name}`;
  let last: unknown = new UpdateError('HASH_MISMATCH', `${what}: no source`);
  for (const url of blobSources(ctx, listUrl, sha256)) {
    try {
      const bytes = await fetchSmallBlob(ctx, url, what, index.listSize);
      if (createHash('sha256').update(bytes).digest('hex') === sha256) return bytes;
      last = new UpdateError('HASH_MISMATCH', `${what}: digest does not match the index`);
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      last = error;
    }
    ctx.onSourceFailure?.({
      artifact: artifact.name,
      url: url.href,
      code: toUpdateError(last).code,
    });
  }
  throw last;
}

/** Fetches, checks and caches one artifact's published tree; false when there is none. */
async function keepTree(ctx: ChunkedContext, artifact: ManifestArtifact): Promise<boolean> {
  const loaded = await loadIndex(ctx, artifact);
  if (loaded === undefined) return false;
  const { index } = loaded;
  if (index.listSize > MAX_KEPT_LIST_BYTES) return false;
  const list = await fetchList(ctx, artifact, index);
  // Every section against its node, every bound and sum, as when the cache is loaded.
  readWholeTree(index, list);
  await ctx.chunks.keepPublishedTree(
    artifact.sha256,
    loaded.bytes,
    list,
    index.params,
    layoutOf(index),
  );
  return true;
}

/**
 * After a pull: caches the published chunk tree of every blob it fetched whole whose entry
 * names a chunk index (blobs assembled from chunks already cached theirs). Best effort: a
 * failure is logged and only costs one read of the blob before its first delta. Resolves to
 * the bytes received.
 */
export async function keepWholeTrees(
  run: ChunkRun,
  pulled: readonly ManifestArtifact[],
  chunked: ReadonlySet<string>,
): Promise<number> {
  const ports = run.chunks;
  if (ports === undefined) return 0;
  let bytes = 0;
  const ctx: ChunkedContext = {
    ...chunkedContext(run, ports, ports.store),
    onNetworkBytes: (count) => {
      bytes += count;
    },
  };
  for (const artifact of pulled) {
    if (run.signal.aborted) break;
    if (artifact.chunk_index === undefined || artifact.size < CHUNK_INDEX_MIN_BYTES) continue;
    if (chunked.has(artifact.sha256)) continue;
    await keepTree(ctx, artifact).catch((error: unknown) => {
      if (run.signal.aborted) return;
      run.logger.warn('chunk tree not kept, the blob will be read to learn it', {
        artifact: artifact.name,
        code: toUpdateError(error).code,
      });
    });
  }
  return bytes;
}
