/**
 * The LocalStore port over a state directory (layout: state-dir.ts): state file, blobs,
 * partial downloads, audit log. Commits and rollbacks go through the commit journal
 * (commit-journal.ts, docs/UPDATER.md §3), which `open` also uses to finish a commit a crash
 * interrupted. Small blobs are sealed behind the downloads by blob-sealer.ts, which this waits
 * for before a lookup or a commit. Every file-system failure leaves here as IO (fs-errors.ts
 * `io`).
 */
import { readdir } from 'node:fs/promises';
import type { AuditRecord } from '#core/install/index.js';
import { UpdateError } from '#core/errors.js';
import type { StepHook } from '#core/install/index.js';
import type { LocalStore, PartialBlob, SetToStage } from '#core/ports.js';
import { encodeState, type InstalledArtifact, type UpdaterState } from '#core/state.js';
import { fsyncDir, writeFileAtomic } from '#shared/atomic-file.js';
import { appendAuditFile } from './audit-file.js';
import {
  commitSet,
  readPendingState,
  recoverCommit,
  switchToSet,
  type CommitContext,
  type SetToCommit,
} from './commit-journal.js';
import { CurrentSet, type SwapStrategy } from './current-set.js';
import { readStateAndBytes, type LoadedState } from './state-file.js';
import { BlobListing, BlobSealer, openFactsBook, trustBlob } from '../blobs/index.js';
import { openPartialBlob, storeVerifiedBlob, type BlobSealerOptions } from '../blobs/index.js';
import type { PartialBlobOptions, PartialPaths } from '../blobs/index.js';
import { ensureStateDirs, envelopePath, exists, io, isDiskFull } from '../fs/index.js';
import { prepareStateDir, readNoFollow, stateDirPaths, type StateDirPaths } from '../fs/index.js';
import { PullStaging } from './pull-staging.js';
import { quickCheck, scanTree } from './tree-scan.js';

export interface FileStoreOptions extends BlobSealerOptions {
  /** Called after each durable install step (crash tests). */
  readonly onStep?: StepHook | undefined;
  /** Told the bytes of each append to a partial download (read-buffer-gc.ts paces a GC). */
  readonly onWritten?: ((bytes: number) => void) | undefined;
  /** Bytes between two early data syncs of a large partial (early-writeback.ts). */
  readonly writebackEveryBytes?: number | undefined;
  /** How the live set is switched (current-set.ts); default: the platform's. */
  readonly swap?: SwapStrategy | undefined;
  /** The platform the strategy is chosen for (default process.platform; injected in tests). */
  readonly platform?: NodeJS.Platform | undefined;
  /** False without the lock (a read on a full disk): opening then writes nothing (recoverOrView). */
  readonly locked?: boolean | undefined;
}

/** One settled answer for every blob found absent without a file call. */
const ABSENT: Promise<boolean> = Promise.resolve(false);

export class FileStore implements LocalStore {
  private readonly commit: CommitContext;
  /** Blobs were renamed into blobs/ since it was last synced (partial-blob.ts `onPromoted`). */
  private blobsUnsynced = false;
  /** Blobs were promoted since the last `settleBlobs` (the `blobs-settled` step). */
  private promotedUnsettled = false;
  /**
   * Digests that may have a partial file: those listed in partial/ at the first open, and every
   * one opened since (a retry resumes). Others skip a stat each (only this process writes here).
   */
  private partials: Set<string> | undefined;
  /** Decides absences from one listing of blobs/ per run (blob-listing.ts). */
  private readonly listing: BlobListing;
  /** Seals small blobs behind the downloads (blob-sealer.ts); decided once per store. */
  private readonly sealer: BlobSealer;
  /** The staging tree and signed manifest of the set being pulled (pull-staging.ts). */
  private readonly pulled: PullStaging;
  /**
   * The state and bytes this store's last commit wrote: what a read would parse now (only the
   * lock holder writes the state), handed back by `loadStateAndBytes` without reading and
   * parsing them again; dropped by any other write or recovery of the state.
   */
  private written: LoadedState | undefined;
  /** The live set under the chosen swap strategy. */
  readonly current: CurrentSet;

  private constructor(
    readonly paths: StateDirPaths,
    private readonly options: FileStoreOptions,
  ) {
    this.current = CurrentSet.of(paths, options.swap, options.platform);
    this.commit = { paths, current: this.current, onStep: options.onStep };
    this.listing = new BlobListing(paths.blobs);
    this.sealer = new BlobSealer(paths.blobs, options);
    this.pulled = new PullStaging(paths, this.current);
  }

  /**
   * Opens DIR (creating it), then finishes any commit a crash interrupted (after migrating a
   * DIR written under the other swap strategy). CONFIG_INVALID for a strategy that cannot be
   * atomic on this platform (the symlink swap on Windows).
   */
  static async open(dir: string, options: FileStoreOptions = {}): Promise<FileStore> {
    const store = new FileStore(stateDirPaths(dir), options);
    await io('check the state directory', () => prepareStateDir(store.paths));
    await io('prepare the state directory', () => ensureStateDirs(store.paths));
    await io('check the blob facts directory', () => openFactsBook(store.paths.blobs));
    await store.recoverOrView();
    return store;
  }

  /** Crash recovery: roll a journaled commit forward; drop half-built staging trees. */
  recover(): Promise<void> {
    this.written = undefined;
    return io('recover', () => recoverCommit(this.commit));
  }

  /**
   * recover, except on a full disk or without the lock (whose holder may be mid-commit): then
   * the journal stays and the state is read as its replay would leave it, writing nothing, so
   * `status` and `verify` still answer (docs/UPDATER.md §3, A full disk after the swap).
   * Undefined when recovery ran, or when nothing is pending.
   */
  private async recoverOrView(): Promise<UpdaterState | undefined> {
    if (this.options.locked === false) {
      return io('read the pending commit', () => readPendingState(this.commit));
    }
    try {
      await this.recover();
      return undefined;
    } catch (error) {
      if (!isDiskFull(error)) throw error;
      const view = await io('read the pending commit', () => readPendingState(this.commit));
      this.options.logger?.warn('a commit waits for disk space to finish', {
        error: error instanceof Error ? error.message : String(error),
      });
      if (view === undefined) throw error;
      return view;
    }
  }

  async loadState(): Promise<UpdaterState> {
    return (await this.loadStateAndBytes()).state;
  }

  /**
   * loadState, also handing back the bytes it parsed: the last-run record names their digest
   * (state-touch.ts), which then costs no second read of the 1 MB file (docs/UPDATER.md §3,
   * No-op runs).
   */
  async loadStateAndBytes(): Promise<LoadedState> {
    // A commit that failed part-way in this process (ENOSPC, EIO) leaves its journal: finish
    // it before anything reads the state, not only at the next start (docs/UPDATER.md §3).
    const view = (await exists(this.paths.journal)) ? await this.recoverOrView() : undefined;
    // A run starts here: its first absent blob lists blobs/ afresh (blob-listing.ts).
    this.listing.forget();
    if (view !== undefined) return { state: view, bytes: undefined };
    return this.written ?? readStateAndBytes(this.paths.state);
  }

  async saveState(state: UpdaterState): Promise<void> {
    this.written = undefined;
    await io('write the state file', () => writeFileAtomic(this.paths.state, encodeState(state)));
  }

  hasBlob(sha256: string, size: number): Promise<boolean> {
    // Surely absent, decided without an await (blob-listing.ts); with nothing being promoted,
    // the answer the full path below would give.
    if (this.sealer.pending === 0 && this.listing.surelyAbsent(sha256)) return ABSENT;
    // Reused only while the facts recorded at verification hold, else re-hashed (blob-facts.ts).
    // A blob still being promoted behind the downloads is waited for, never half seen.
    return io('check a held blob', async () => {
      if (this.sealer.pending > 0) await this.sealer.idle();
      if (!(await this.listing.mayHold(sha256))) return false;
      return trustBlob(this.paths.blobs, sha256, size);
    });
  }

  openPartial(sha256: string, size: number): Promise<PartialBlob> {
    return io('open a partial download', async () => {
      const options = await this.partialOptions(sha256);
      return openPartialBlob(this.partialPaths, sha256, size, options);
    });
  }

  /** Bytes the core verified against `sha256` (a pack member): written without a second hash. */
  storeVerified(sha256: string, size: number, bytes: Uint8Array): Promise<void> {
    return io('store a verified blob', async () => {
      // partial/ is listed once: no await per blob after that.
      const listed = this.partials;
      const options =
        listed === undefined ? await this.partialOptions(sha256) : this.optionsFor(listed, sha256);
      await storeVerifiedBlob(this.partialPaths, sha256, size, bytes, options);
    });
  }

  private get partialPaths(): PartialPaths {
    return { partialDir: this.paths.partial, blobDir: this.paths.blobs };
  }

  /** How a partial of `sha256` is opened, and whether one may be there already. */
  private async partialOptions(sha256: string): Promise<PartialBlobOptions> {
    this.partials ??= new Set(
      (await readdir(this.paths.partial)).map((name) => name.replace(/\.(part|meta)$/, '')),
    );
    return this.optionsFor(this.partials, sha256);
  }

  /** `partialOptions` once partial/ is listed. */
  private optionsFor(partials: Set<string>, sha256: string): PartialBlobOptions {
    const mayExist = partials.has(sha256);
    partials.add(sha256);
    return {
      mayExist,
      onStep: this.options.onStep,
      onWritten: this.options.onWritten,
      writebackEveryBytes: this.options.writebackEveryBytes,
      onPromoted: this.onPromoted,
      seal: this.sealer.runner,
    };
  }

  /** A blob was renamed into blobs/: synced before the next commit, settled before it. */
  private readonly onPromoted = (): void => {
    this.blobsUnsynced = true;
    this.promotedUnsettled = true;
  };

  /** Waits until every blob the downloads handed over is promoted (seal-queue.ts). */
  settleBlobs(): Promise<void> {
    return io('promote downloaded blobs', async () => {
      await this.sealer.settle();
      if (this.promotedUnsettled) {
        this.promotedUnsettled = false;
        this.options.onStep?.('blobs-settled');
      }
    });
  }

  /**
   * Stages the set the run will commit while it is pulled: every blob promoted from now on is
   * linked into sets/<dir>.staging as it arrives (docs/UPDATER.md §3, Staging during the
   * pull). Nothing for the live set, which is never rebuilt.
   */
  expectSet(set: SetToStage & { readonly envelope?: Uint8Array }): Promise<void> {
    return io('stage the set being pulled', () => this.pulled.expect(set));
  }

  commitSet(set: SetToCommit, next: UpdaterState): Promise<void> {
    this.written = undefined;
    return io('commit', async () => {
      // The pull settled already; a caller that did not gets its blobs promoted first.
      await this.sealer.settle();
      const early = this.pulled.take();
      const envelopeKept = this.pulled.envelopeWritten(set);
      // One fsync of blobs/ for the whole batch, before the journal names a set built from
      // it: every blob's data was synced before its rename (docs/UPDATER.md §3, Durability).
      // Started first, so staging's checks run on the main thread while it is on the disk.
      const before = this.blobsUnsynced ? this.syncBlobs() : undefined;
      // Awaited by commitSet; marked handled so a commit refused before it looks is not left
      // with an unhandled rejection.
      before?.catch(() => undefined);
      this.written = await commitSet(this.commit, set, next, { early, before, envelopeKept });
    });
  }

  /** The commit's fsync of blobs/ (the renames of every blob promoted since the last one). */
  private async syncBlobs(): Promise<void> {
    this.blobsUnsynced = false;
    await fsyncDir(this.paths.blobs);
    this.options.onStep?.('blobs-synced');
  }

  switchSet(dir: string, next: UpdaterState): Promise<void> {
    this.written = undefined;
    return io('switch sets', () => switchToSet(this.commit, dir, next));
  }

  checkInstalled(artifacts: readonly InstalledArtifact[]): Promise<readonly string[]> {
    return io('check the installed set', async () =>
      quickCheck(await this.current.path(), artifacts),
    );
  }

  async loadEnvelope(setId: string): Promise<Uint8Array | undefined> {
    try {
      return await readNoFollow(envelopePath(this.paths, setId));
    } catch (error) {
      if (error instanceof UpdateError) throw error; // a planted link: STATE_UNSAFE
      return undefined;
    }
  }

  saveEnvelope(setId: string, envelope: Uint8Array): Promise<void> {
    return io('write a signed manifest', () =>
      writeFileAtomic(envelopePath(this.paths, setId), envelope),
    );
  }

  scanInstalled(): Promise<readonly InstalledArtifact[]> {
    return io('scan the installed set', async () => scanTree(await this.current.path()));
  }

  appendAudit(record: AuditRecord): Promise<void> {
    return io('append to the audit log', () => appendAuditFile(this.paths.audit, record));
  }
}
