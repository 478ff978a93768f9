/**
 * The pull of a run (docs/UPDATER.md §11): pack members first, as ranges of their packs, then
 * everything else, and whatever the packs could not give, one whole-file GET each
 * (transfer/pull.ts, which also holds the batch boundary where every blob is promoted).
 * Progress is told over the whole pull.
 */
import type { ManifestArtifact } from '#protocol/manifest.js';
import { pullBlobs, type BlobPuller, type PullContext } from '../transfer/index.js';
import { pullPacks } from './pack-pull.js';

/** `bytes` verified-in of `total`; `received` from the network in this run. */
export type PullProgress = (
  bytes: number,
  total: number,
  artifact: string,
  received: number,
) => void;

/** Pulls `todo` (unique digests the store lacks); resolves to the bytes from the network. */
export async function pullWithPacks(
  ctx: PullContext,
  todo: readonly ManifestArtifact[],
  onProgress: PullProgress,
  pullOther?: BlobPuller,
): Promise<number> {
  const total = todo.reduce((sum, a) => sum + a.size, 0);
  let packed = 0;
  let network = 0;
  const { left } = await pullPacks(ctx, todo, {
    onMember: (artifact) => {
      packed += artifact.size;
      onProgress(packed, total, artifact.name, network);
    },
    onNetworkBytes: (count) => {
      network += count;
    },
  });
  const whole = await pullBlobs(
    ctx,
    left,
    (bytes, _total, artifact, received) =>
      onProgress(packed + bytes, total, artifact, network + received),
    pullOther,
  );
  return network + whole;
}
