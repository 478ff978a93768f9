/**
 * What the store prepares, while a pull runs, for the set that pull will commit (`expectSet`
 * of file-store.ts): the staging tree each promoted blob is linked into as it arrives
 * (docs/UPDATER.md §3, Staging during the pull) and the set's signed manifest, written durably
 * before the last byte (§3, The commit's durable steps side by side). The commit takes both.
 */
import { rm } from 'node:fs/promises';
import type { SetToStage } from '#core/ports.js';
import { setDir } from '#core/state.js';
import { writeFileAtomic } from '#shared/atomic-file.js';
import { setArrivalHook } from '../blobs/index.js';
import { envelopePath, type StateDirPaths } from '../fs/index.js';
import type { SetToCommit } from './commit-journal.js';
import { allSettled } from './settle-all.js';
import type { CurrentSet } from './current-set.js';
import { StagingTree } from './staging-tree.js';

export class PullStaging {
  /** The tree this run's pull stages into (staging-tree.ts), from `expect` to the commit. */
  private early: StagingTree | undefined;
  /** The envelope `expect` wrote to manifests/ durably, until the commit asks for it. */
  private envelopeKept: { readonly setId: string; readonly envelope: Uint8Array } | undefined;

  constructor(
    private readonly paths: StateDirPaths,
    private readonly current: CurrentSet,
  ) {}

  /** Stages `set` and keeps its envelope, dropping what an earlier `expect` left. */
  async expect(set: SetToStage & { readonly envelope?: Uint8Array }): Promise<void> {
    const before = this.take();
    this.envelopeKept = undefined;
    if (before !== undefined) await rm(before.root, { recursive: true, force: true });
    await allSettled([this.stage(set), this.keepEnvelope(set.setId, set.envelope)]);
  }

  /** The staging tree of `expect`, hooked to the arrivals (none for the live set). */
  private async stage(set: SetToStage): Promise<void> {
    const dir = setDir(set);
    if ((await this.current.live()) === dir) return;
    this.early = await StagingTree.create(this.paths.sets, dir, set.artifacts);
    setArrivalHook(this.paths.blobs, this.early);
  }

  /**
   * Writes the set's signed manifest while it is pulled: it is known once the manifest is
   * accepted, and the commit then has one durable write fewer after the last byte. One that no
   * commit names (a pull that fails or is killed) is what a crash before the journal left
   * already: unread, and removed by the next commit's GC (docs/UPDATER.md §3, The commit's
   * durable steps side by side).
   */
  private async keepEnvelope(setId: string, envelope: Uint8Array | undefined): Promise<void> {
    if (envelope === undefined) return;
    await writeFileAtomic(envelopePath(this.paths, setId), envelope);
    this.envelopeKept = { setId, envelope };
  }

  /** Whether `set`'s envelope is the one `expect` made durable (asked once, by the commit). */
  envelopeWritten(set: SetToCommit): boolean {
    const kept = this.envelopeKept;
    this.envelopeKept = undefined;
    return (
      kept !== undefined &&
      kept.setId === set.setId &&
      Buffer.from(kept.envelope).equals(set.envelope)
    );
  }

  /** The pull's staging tree, no longer told of arrivals. */
  take(): StagingTree | undefined {
    const early = this.early;
    this.early = undefined;
    setArrivalHook(this.paths.blobs, undefined);
    return early;
  }
}
