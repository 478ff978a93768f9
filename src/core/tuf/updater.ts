/**
 * The TUF client of one run (TUF spec §5): open it on the stored trusted root, refresh the
 * top-level metadata once, then look targets up and download them verified. A new run (a new
 * check) opens a new TufUpdater: trust carries over through the metadata store only.
 */
import { TufError, requireLengthAndHashes, type TargetFile } from '#protocol/tuf/index.js';
import { tufConfig, type TufClientConfig } from './config.js';
import {
  loadRoot,
  loadSnapshot,
  loadTargets,
  loadTimestamp,
  type WorkflowContext,
} from './load-metadata.js';
import type { MetadataStore, TufClock, TufFetcher } from './ports.js';
import { targetFilePath, withSlash } from './role-names.js';
import { walkRelease, type TrustedRelease } from './release-walk.js';
import { findTarget } from './target-search.js';
import { TrustedMetadataSet } from './trusted-set.js';

export interface TufUpdaterOptions {
  /** Where `N.root.json`, `timestamp.json`... are, e.g. https://example.com/metadata/. */
  readonly metadataBaseUrl: string;
  readonly fetcher: TufFetcher;
  readonly store: MetadataStore;
  readonly clock: TufClock;
  readonly config?: Partial<TufClientConfig>;
  /**
   * A request nonce: sent as `timestamp.json?nonce=X` and required back as the signed
   * timestamp's `nonce` (NONCE_MISMATCH otherwise), so the answer was signed for this run
   * (docs/PROTOCOL.md §TUF repository, Nonce). Not part of TUF 1.0.
   */
  readonly nonce?: string;
}

export class TufUpdater {
  /** The one refresh of this run; a failed one fails every later lookup the same way. */
  #refresh: Promise<void> | undefined;

  private constructor(private readonly ctx: WorkflowContext) {}

  /** TUF spec §5.1, §5.2: reads the clock once and loads the stored trusted root. */
  static async open(options: TufUpdaterOptions): Promise<TufUpdater> {
    const rootBytes = await options.store.read('root');
    if (rootBytes === undefined) throw new TufError('NO_TRUSTED_ROOT', 'no trusted root is stored');
    const config = tufConfig(options.config);
    const retired = await options.store.readRetiredKeys();
    const trusted = new TrustedMetadataSet(rootBytes, options.clock.nowMs(), config, retired);
    return new TufUpdater({
      trusted,
      fetcher: options.fetcher,
      store: options.store,
      config,
      metadataBaseUrl: options.metadataBaseUrl,
      ...(options.nonce === undefined ? {} : { nonce: options.nonce }),
    });
  }

  /** The metadata trusted so far (read-only views). */
  get trusted(): TrustedMetadataSet {
    return this.ctx.trusted;
  }

  /** TUF spec §5.3..§5.6: root, timestamp, snapshot and top-level targets, once per run. */
  refresh(): Promise<void> {
    if (this.#refresh !== undefined) {
      return Promise.reject(new TufError('WRONG_ORDER', 'refresh() runs once per TufUpdater'));
    }
    this.#refresh = this.#runRefresh();
    return this.#refresh;
  }

  async #runRefresh(): Promise<void> {
    await loadRoot(this.ctx);
    await loadTimestamp(this.ctx);
    await loadSnapshot(this.ctx);
    await loadTargets(this.ctx, 'targets', 'root');
  }

  /** TUF spec §5.6.7: the target's info, or undefined when no trusted role lists it. */
  async getTargetInfo(targetPath: string): Promise<TargetFile | undefined> {
    await (this.#refresh ?? this.refresh());
    return findTarget(this.ctx, targetPath);
  }

  /**
   * Every target of the release, the delegated roles' included, each as its own §5.6.7 search
   * finds it (release-walk.ts), with the roles it came from.
   */
  async releaseTargets(): Promise<TrustedRelease> {
    await (this.#refresh ?? this.refresh());
    const top = this.ctx.trusted.targets('targets');
    // Top-level targets has one delegator, root, and the refresh just checked it against it:
    // no second signature check of the largest file on the no-op path.
    return walkRelease(
      (role, delegator) =>
        role === 'targets' && delegator === 'root' && top !== undefined
          ? Promise.resolve(top)
          : loadTargets(this.ctx, role, delegator),
      this.ctx.config,
    );
  }

  /** As getTargetInfo, refusing an unlisted target with TARGET_NOT_FOUND. */
  async requireTargetInfo(targetPath: string): Promise<TargetFile> {
    const target = await this.getTargetInfo(targetPath);
    if (target === undefined) {
      throw new TufError('TARGET_NOT_FOUND', `no trusted role lists ${targetPath}`, {
        target: targetPath,
      });
    }
    return target;
  }

  /** The URL of a target file under `targetBaseUrl` (TUF spec §5.7.3). */
  targetUrl(target: TargetFile, targetBaseUrl: string): string {
    const hashPrefixed =
      this.ctx.trusted.root.signed.consistentSnapshot && this.ctx.config.prefixTargetsWithHash;
    return `${withSlash(targetBaseUrl)}${targetFilePath(target, hashPrefixed)}`;
  }

  /** TUF spec §5.7.3: fetches at most `length` bytes and checks length and every hash. */
  async downloadTarget(target: TargetFile, targetBaseUrl: string): Promise<Uint8Array> {
    const bytes = await this.ctx.fetcher.get(this.targetUrl(target, targetBaseUrl), target.length);
    verifyTarget(target, bytes);
    return bytes;
  }
}

/** Throws LENGTH_MISMATCH, HASH_MISMATCH or UNSUPPORTED_HASH unless `bytes` is the target. */
export function verifyTarget(target: TargetFile, bytes: Uint8Array): void {
  requireLengthAndHashes(bytes, target.length, target.hashes, target.path);
}
