/**
 * Publishing a release (docs/PROTOCOL.md §2.3, §2.7.8): either signed here with the release key
 * held in the data directory (the one-command development path), or a bundle signed offline by
 * `sign-release` (whose table of packs is checked and its new packs built here). Both store
 * the blobs and the release envelope, sign a format 1 envelope for old clients while the node
 * key is here, and have a new freshness statement signed. Used by the in-process publish(),
 * POST /api/dev/releases and the `publish` CLI. Publishes are serialised so the version check
 * and the write are one step.
 */
import { readFile } from 'node:fs/promises';
import semver from 'semver';
import {
  CHUNK_INDEX_MIN_BYTES,
  RELEASE_PAYLOAD_TYPE,
  signDsse,
  type ManifestArtifact,
} from '#protocol';
import type { ServerClock } from '../../platform/clock.js';
import { HttpError } from '../../http/http-error.js';
import type { BlobInfo, BlobStore } from '../../store/blob-store.js';
import {
  DEFAULT_EXPIRES_IN_S,
  MAX_EXPIRES_IN_S,
  signLegacyEnvelope,
} from '../format-one-envelope.js';
import { checkBundle, matchArtifacts } from './release-bundle.js';
import {
  buildRelease,
  checkArtifactList,
  checkVersion,
  invalid,
  type PublishArtifact,
  type ReleaseInput,
} from './release-builder.js';
import { releaseOf, type Release, type ReleaseStore } from './release-store.js';
import type { TrustKeys } from '../keys/trust-keys.js';
import { LockHeld, takeLock } from '../../platform/dir-lock.js';
import { referencedDigests, sweep, type SweepResult } from './blob-sweep.js';
import { addPacks, type PackPorts } from './pack-builder.js';
import { buildBundlePacks, checkBundlePacks } from './bundle-packs.js';

/** The data directory's publish lock (docs/SERVER.md §One publisher at a time). */
export const PUBLISH_LOCK_FILE = 'publish.lock';

export { checkArtifactBaseUrl, type PublishArtifact } from './release-builder.js';
export { DEFAULT_EXPIRES_IN_S, MAX_EXPIRES_IN_S } from '../format-one-envelope.js';

/** Sign here: the release key is in the data directory. */
export interface SignedHereInput extends ReleaseInput {
  /** Lifetime of the format 1 envelope for old clients, in seconds (default 7 days). */
  readonly expires_in_s?: number;
}

/** A bundle signed offline: the release envelope, and the bytes of its artifacts. */
export interface BundleInput {
  readonly bundle: unknown;
  readonly artifacts: readonly PublishArtifact[];
  readonly expires_in_s?: number;
}

export type PublishInput = SignedHereInput | BundleInput;

/** What the freshness side reports once the release is served (§2.7.3). */
export interface Freshened {
  readonly sequence: number;
  readonly issued_at: string;
  readonly expires_at: string;
}

export interface PublishResult {
  readonly ok: true;
  readonly registry_version: string;
  /** The release digest that freshness statements name. */
  readonly release_sha256: string;
  /** The freshness statement signed for it. */
  readonly sequence: number;
  readonly issued_at: string;
  readonly expires_at: string;
  /** The first release key that signed it. */
  readonly keyid: string;
  readonly artifacts: readonly ManifestArtifact[];
}

export interface PublisherDeps {
  /** The keys held now (a rotation replaces them). */
  readonly keys: () => TrustKeys;
  readonly releases: ReleaseStore;
  readonly blobs: BlobStore;
  readonly clock: ServerClock;
  /** Signs the freshness statement over the newly current release. */
  readonly freshen: () => Promise<Freshened>;
  /** The lock file every publisher of this data directory takes. */
  readonly lockPath: string;
}

export class Publisher {
  #chain: Promise<unknown> = Promise.resolve();
  /** Digests the publish in flight stored (removed again if it fails). */
  #stored = new Set<string>();

  constructor(private readonly deps: PublisherDeps) {}

  /** Publishes one release; refusals are HttpErrors with stable codes. */
  publish(input: PublishInput): Promise<PublishResult> {
    return this.exclusive(() => this.#publish(input));
  }

  /**
   * Runs `task` in the publish queue: it starts after the publishes before it and the ones
   * issued meanwhile wait for it. The dev reset clears the stores this way, so it can neither
   * delete the blobs of a publish in flight nor race its version check. `publishNow` publishes
   * from inside the task (queueing behind it would deadlock).
   */
  exclusive<T>(
    task: (publishNow: (input: PublishInput) => Promise<PublishResult>) => Promise<T>,
  ): Promise<T> {
    const run = this.#chain.then(() => task((input) => this.#publish(input)));
    this.#chain = run.catch(() => undefined);
    return run;
  }

  /**
   * One publisher at a time across processes: the lock is taken, the stored releases are
   * re-read (another process may have published), and only then is the version checked, so
   * exactly one of two racing publishes is acknowledged and the other is refused.
   */
  async #publish(input: PublishInput): Promise<PublishResult> {
    const release = await this.#lock();
    this.#stored = new Set();
    try {
      await this.deps.releases.load();
      return await this.#publishLocked(input);
    } catch (error) {
      await this.#dropOrphans();
      throw error;
    } finally {
      await release();
    }
  }

  /**
   * Start-up: removes the temporary files and unreferenced blobs an earlier crash left, under
   * the lock; undefined when another process is publishing (its files are in flight).
   */
  async sweepAfterCrash(): Promise<SweepResult | undefined> {
    let release: () => Promise<void>;
    try {
      release = await takeLock(this.deps.lockPath);
    } catch (error) {
      if (error instanceof LockHeld) return undefined;
      throw error;
    }
    try {
      const { releases, blobs } = this.deps;
      const keep = await referencedDigests([releases.dir, releases.legacyDir]);
      return await sweep(blobs.root, keep, { tempDirs: [releases.dir, releases.legacyDir] });
    } finally {
      await release();
    }
  }

  async #lock(): Promise<() => Promise<void>> {
    try {
      return await takeLock(this.deps.lockPath);
    } catch (error) {
      if (!(error instanceof LockHeld)) throw error;
      const by = error.owner === undefined ? '' : ` (pid ${error.owner.pid})`;
      throw new HttpError(
        409,
        'PUBLISH_IN_PROGRESS',
        `another publish of this data directory is in progress${by}; retry once it has finished`,
      );
    }
  }

  /** After a failed publish: its blobs that no stored release names go (best effort). */
  async #dropOrphans(): Promise<void> {
    if (this.#stored.size === 0) return;
    const { releases, blobs } = this.deps;
    try {
      const keep = await referencedDigests([releases.dir, releases.legacyDir]);
      await sweep(blobs.root, keep, { only: this.#stored });
    } catch {
      // An unreadable release keeps every blob: the start-up sweep tries again.
    }
  }

  async #publishLocked(input: PublishInput): Promise<PublishResult> {
    const expiresInS = input.expires_in_s ?? DEFAULT_EXPIRES_IN_S;
    if (!Number.isSafeInteger(expiresInS) || expiresInS < 1 || expiresInS > MAX_EXPIRES_IN_S) {
      invalid('INVALID_EXPIRY', `expires_in_s must be an integer from 1 to ${MAX_EXPIRES_IN_S}`);
    }
    const signed = 'bundle' in input ? await this.#fromBundle(input) : await this.#signHere(input);
    const root = this.deps.keys().root;
    const legacy =
      root === undefined
        ? undefined
        : signLegacyEnvelope(signed.release, root, this.deps.clock.now(), expiresInS);
    const release: Release = releaseOf(signed.envelope, legacy);
    await this.deps.releases.save(release);
    const fresh = await this.deps.freshen();
    return {
      ok: true,
      registry_version: release.manifest.registry_version,
      release_sha256: release.digest,
      ...fresh,
      keyid: release.envelope.signatures[0]?.keyid ?? '',
      artifacts: release.manifest.artifacts,
    };
  }

  /** The one-command path: needs release-key.json; checks the version before any blob. */
  async #signHere(input: SignedHereInput) {
    const key = this.deps.keys().release;
    if (key === undefined) {
      throw new HttpError(
        409,
        'RELEASE_KEY_MISSING',
        'this server holds no release key: sign the release offline (sign-release) and publish the bundle',
      );
    }
    this.#checkAbove(input.registry_version);
    checkArtifactList(input.artifacts);
    const previous = this.deps.releases.current?.manifest.artifacts;
    const { release, payload } = await buildRelease(
      input,
      (a) => this.#put(a),
      (artifacts, urlOf) => addPacks(artifacts, previous, this.#packPorts(urlOf)),
    );
    return { release, envelope: signDsse(payload, RELEASE_PAYLOAD_TYPE, [key]) };
  }

  /** An offline-signed bundle: verified as a client would, then its bytes matched. */
  async #fromBundle(input: BundleInput) {
    const newest = this.deps.keys().chain.newest;
    if (newest === undefined) throw new HttpError(409, 'KEY_CHAIN_GAP', 'no key set is stored');
    const bundle = checkBundle(input.bundle, newest);
    const version = bundle.release.registry_version;
    const same = this.deps.releases.current;
    // The same release signed anew (after a release key rotation) replaces its signatures.
    const resign = same?.manifest.registry_version === version && same.digest === bundle.digest;
    if (!resign) this.#checkAbove(version);
    const given = checkArtifactList(input.artifacts);
    const stored = new Map<string, BlobInfo>();
    for (const a of given) stored.set(a.name, await this.#put(a));
    const { blobs } = this.deps;
    await matchArtifacts(bundle.release, given, stored, (sha) => blobs.sizeOf(sha));
    // docs/PROTOCOL.md §2.8: the signed table is checked whole before any pack is stored.
    const packs = await checkBundlePacks(bundle.release, blobs);
    await buildBundlePacks(packs, blobs, (sha256) => this.#stored.add(sha256));
    return { release: bundle.release, envelope: bundle.envelope };
  }

  #checkAbove(input: unknown): void {
    const version = checkVersion(input);
    const floor = this.deps.releases.highestVersion;
    if (floor !== undefined && !semver.gt(version, floor)) {
      throw new HttpError(
        409,
        'VERSION_NOT_INCREASING',
        `registry_version ${version} is not above the published ${floor}`,
      );
    }
  }

  /** Packs are read from and stored in the blob store like any blob (docs/PROTOCOL.md §2.8). */
  #packPorts(urlOf: (sha256: string) => string): PackPorts {
    const { blobs } = this.deps;
    return {
      read: (sha256) => readFile(blobs.pathOf(sha256)),
      put: (bytes) => blobs.putBytes(bytes, { onStored: (sha256) => this.#stored.add(sha256) }),
      urlOf,
    };
  }

  #put(a: PublishArtifact): Promise<BlobInfo> {
    // Large artifacts get their chunk index in the same pass (docs/PROTOCOL.md §2.6); every
    // digest stored is noted at once, so a failure half-way still knows what to remove.
    const options = {
      chunkIndexMinBytes: CHUNK_INDEX_MIN_BYTES,
      onStored: (sha256: string) => this.#stored.add(sha256),
    };
    return 'content' in a
      ? this.deps.blobs.putBytes(a.content, options)
      : this.deps.blobs.putFile(a.path, options);
  }
}
