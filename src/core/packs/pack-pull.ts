/**
 * Brings the pack members of a pull into the blob store with few requests (docs/UPDATER.md
 * §11): each pack's wanted members are coalesced into ranges and fetched as multipart range
 * requests (chunks/range-fetch.ts), each member checked against its artifact's signed SHA-256
 * as its last byte arrives (the one check that decides), then stored as a blob with the
 * durability and promotion of a whole-file download, without a second hash
 * (store-verified.ts). Whatever a pack cannot give (a
 * server that ignores ranges or refuses them, a member whose bytes do not match, a pack that
 * is gone) is handed back to be fetched whole, one GET each.
 */
import { resolveArtifactUrl, type ManifestArtifact } from '#protocol/manifest.js';
import { fetchPieces, type RangeFetchContext, type SourceFailure } from '../chunks/index.js';
import { UpdateError } from '../errors.js';
import type { HttpContext } from '../transfer/index.js';
import type { LocalStore, Logger, Random } from '../ports.js';
import { storeVerified } from '../store-verified.js';
import { MemberWrites } from './member-writes.js';
import {
  PACK_COALESCE_RULE,
  splitByPack,
  type MemberPiece,
  type PackGroup,
} from './pack-groups.js';

export interface PackPullContext {
  readonly http: HttpContext;
  readonly store: LocalStore;
  readonly random: Random;
  readonly logger: Logger;
  readonly signal: AbortSignal;
}

export interface PackPullHooks {
  /** A member is in the store (completed; promoted at the pull's batch boundary). */
  readonly onMember?: (artifact: ManifestArtifact) => void;
  readonly onNetworkBytes?: (count: number) => void;
}

export interface PackPullResult {
  /** Artifacts still to fetch whole. */
  readonly left: ManifestArtifact[];
  /** Members brought in from packs. */
  readonly members: number;
}

/** A pack whose members keep failing their hash is given up on after this many passes. */
const MAX_PASSES = 4;
/**
 * Member writes in flight per pack, and their bytes: with `limits.parallel` packs at once (4 by
 * default) that keeps 16 partial blobs open, as the whole-file pull keeps 16 GETs (4
 * connections, 4 deep), and at most 4 MiB of members waiting for the disk.
 */
const MEMBER_WRITES = 4;
const MEMBER_WRITE_BYTES = 1024 * 1024;

/** Fetches the members of every pack in `todo`; answers what is left to fetch whole. */
export async function pullPacks(
  ctx: PackPullContext,
  todo: readonly ManifestArtifact[],
  hooks: PackPullHooks = {},
): Promise<PackPullResult> {
  const { packs, single } = splitByPack(todo);
  const left = [...single];
  // A bandwidth cap is kept by the whole-file path (pull.ts): packs are not used under one.
  if (packs.length === 0 || ctx.http.limits.maxBytesPerS > 0) {
    return { left: [...todo], members: 0 };
  }
  let members = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < packs.length && !ctx.signal.aborted; i = next++) {
      const pack = packs[i] as PackGroup;
      const rest = await pullPack(ctx, pack, hooks);
      members += pack.members.length - rest.length;
      left.push(...rest);
    }
  };
  const workers = Math.max(1, Math.min(ctx.http.limits.parallel, packs.length));
  try {
    await Promise.all(Array.from({ length: workers }, worker));
  } catch (error) {
    // No promotion outlives a failed run (pull.ts does the same at its batch boundary).
    await ctx.store.settleBlobs?.().catch(() => undefined);
    throw error;
  }
  if (ctx.signal.aborted) {
    await ctx.store.settleBlobs?.().catch(() => undefined);
    throw new UpdateError('ABORTED', 'aborted');
  }
  return { left, members };
}

/**
 * One pack: its members fetched by range; a member refused for its bytes is left out and the
 * rest asked again; any other failure hands every member not yet in to the whole-file path.
 * Only an abort is thrown.
 */
async function pullPack(
  ctx: PackPullContext,
  pack: PackGroup,
  hooks: PackPullHooks,
): Promise<ManifestArtifact[]> {
  const done = new Set<MemberPiece>();
  const refused = new Set<MemberPiece>();
  let url: URL;
  try {
    url = resolveArtifactUrl(ctx.http.endpoint.base.href, pack.url);
  } catch {
    return pack.members.map((m) => m.artifact);
  }
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const wanted = pack.members.filter((m) => !done.has(m) && !refused.has(m));
    if (wanted.length === 0) break;
    const before = refused.size;
    const writes = new MemberWrites(MEMBER_WRITES, MEMBER_WRITE_BYTES);
    try {
      await fetchPieces(rangeContext(ctx, pack, url, refused, hooks), wanted, (piece, bytes) =>
        writes.add(bytes.length, async () => {
          // Verified by the range fetch (its only hash): the store does not hash it again.
          await storeVerified(ctx.store, piece.artifact.sha256, piece.artifact.size, bytes);
          done.add(piece);
          hooks.onMember?.(piece.artifact);
        }),
      );
      await writes.drain();
      break;
    } catch (error) {
      // Members whose write started are in (or failed) before the pack is judged.
      await writes.drain().catch(() => undefined);
      if (ctx.signal.aborted) throw new UpdateError('ABORTED', 'aborted', { cause: error });
      ctx.logger.warn('pack range fetch failed, fetching its members whole', {
        pack: pack.sha256,
        code: error instanceof UpdateError ? error.code : 'UNKNOWN',
        refused: refused.size,
      });
      if (refused.size === before) break;
    }
  }
  return pack.members.filter((m) => !done.has(m)).map((m) => m.artifact);
}

function rangeContext(
  ctx: PackPullContext,
  pack: PackGroup,
  url: URL,
  refused: Set<MemberPiece>,
  hooks: PackPullHooks,
): RangeFetchContext {
  return {
    // One request at a time per pack: the packs themselves run `limits.parallel` at a time.
    http: { ...ctx.http, limits: { ...ctx.http.limits, parallel: 1 } },
    random: ctx.random,
    signal: ctx.signal,
    sources: [url],
    resourceSize: pack.size,
    what: `pack ${pack.sha256.slice(0, 12)}`,
    rule: PACK_COALESCE_RULE,
    onSourceFailure: (failure: SourceFailure) => {
      if (failure.piece !== undefined) refused.add(failure.piece as MemberPiece);
    },
    ...(hooks.onNetworkBytes === undefined ? {} : { onNetworkBytes: hooks.onNetworkBytes }),
  };
}
