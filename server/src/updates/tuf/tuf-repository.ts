/**
 * The companion server as a TUF 1.0 repository (docs/PROTOCOL.md §TUF repository): root from
 * the key chain (tuf-root.ts), targets from the current release when the release key is held
 * (tuf-targets.ts; otherwise `sign-release` writes them offline), snapshot and timestamp online
 * (tuf-online.ts). Every read first brings the repository up to date on the injected clock;
 * updates run one at a time.
 */
import { watch } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { tuf } from '#protocol';
import { writeFileAtomic } from '#shared/atomic-file.js';
import type { TrustKeys } from '../keys/trust-keys.js';
import type { Release } from '../publish/release-store.js';
import {
  highestVersions,
  isMetadataName,
  readMetadata,
  TARGETS_LIFETIME_S,
  TIMESTAMP_FILE,
  TUF_DIR,
  versionedName,
} from './tuf-layout.js';
import type { TopMetadata } from './tuf-bundle.js';
import { OnlineRoles, timestampWithNonce } from './tuf-online.js';
import { toTufSigner, writeRoot } from './tuf-root.js';
import { targetsFor, targetsSummary } from './tuf-targets.js';

export interface TufRepositoryDeps {
  readonly dataDir: string;
  readonly trust: () => TrustKeys;
  readonly current: () => Release | undefined;
  readonly now: () => number;
  readonly timestampLifetimeS: number;
  /** The highest version of each role's files in the directory (default: a directory read). */
  readonly listVersions?: (dir: string) => Promise<Versions>;
}

type Versions = Awaited<ReturnType<typeof highestVersions>>;

/** The versions a directory read found, and what they were read under. */
interface HeldVersions {
  readonly generation: number;
  readonly trust: TrustKeys;
  readonly release: Release | undefined;
  readonly versions: { -readonly [K in keyof Versions]: Versions[K] };
}

export class TufRepository {
  #queue: Promise<unknown> = Promise.resolve();
  /** The update queued and not started yet, which a new caller joins. */
  #next: Promise<Uint8Array | undefined> | undefined;
  /** The files under the last timestamp served in a bundle, kept while it is current. */
  #top: { timestamp: Uint8Array; files: TopMetadata['files'] } | undefined;
  /** The newest root version the last update saw. */
  #rootVersion = 0;
  /**
   * The versions the last directory read found, kept while the directory (watched), the keys
   * and the release stay the same: most requests then read no directory.
   */
  #versions: HeldVersions | undefined;
  /** Bumped by every change the watcher sees in the directory. */
  #generation = 0;
  #watching = false;
  /** What the newest targets file says, by its version: a version's bytes never change. */
  #summary: { version: number; summary: ReturnType<typeof targetsSummary> } | undefined;

  private constructor(
    private readonly deps: TufRepositoryDeps,
    readonly dir: string,
    private readonly online: OnlineRoles,
  ) {}

  static async open(deps: TufRepositoryDeps): Promise<TufRepository> {
    const dir = join(deps.dataDir, TUF_DIR);
    await mkdir(dir, { recursive: true });
    return new TufRepository(
      deps,
      dir,
      await OnlineRoles.open(dir, deps.now, deps.timestampLifetimeS),
    );
  }

  /**
   * Watches the directory for files another process writes (`publish`, `publish
   * --tuf-targets`, `rotate-keys`), so the versions read per request can be kept in between
   * (as releases/ and keys/ are watched). Without a watcher, or after its error, every request
   * reads the directory.
   */
  watch(): { close(): void } {
    let watcher: ReturnType<typeof watch>;
    try {
      watcher = watch(this.dir, () => {
        this.#generation += 1;
      });
    } catch {
      return { close: () => undefined };
    }
    this.#watching = true;
    watcher.on('error', () => {
      this.#watching = false;
    });
    return {
      close: () => {
        this.#watching = false;
        watcher.close();
      },
    };
  }

  /** The versions in the directory, read again only when something may have changed them. */
  async #versionsNow(trust: TrustKeys, release: Release | undefined): Promise<HeldVersions> {
    const held = this.#versions;
    if (
      this.#watching &&
      held?.generation === this.#generation &&
      held.trust === trust &&
      held.release === release
    ) {
      return held;
    }
    // The generation before the read: a change seen during it makes the next call read again.
    const generation = this.#generation;
    const versions = await (this.deps.listVersions ?? highestVersions)(this.dir);
    this.#versions = { generation, trust, release, versions: { ...versions } };
    return this.#versions;
  }

  /**
   * The bytes of a metadata file by its repository name, or undefined (an unknown name, or no
   * repository yet: no root signed or nothing published).
   */
  async file(name: string, nonce?: string): Promise<Uint8Array | undefined> {
    if (!isMetadataName(name)) return undefined;
    const timestamp = await this.update();
    if (timestamp === undefined) return undefined;
    if (name === TIMESTAMP_FILE) return this.#withNonce(timestamp, nonce);
    return readMetadata(this.dir, name);
  }

  /**
   * What one check needs when no root rotated (docs/PROTOCOL.md §TUF repository, One
   * request): the timestamp (signed for `nonce` when given), the snapshot it names and the
   * targets that snapshot names, with the newest root version; undefined as `file` is.
   */
  async top(nonce?: string): Promise<TopMetadata | undefined> {
    const timestamp = await this.update();
    if (timestamp === undefined) return undefined;
    // From this request's update: a root-only rotation leaves the timestamp as it is.
    const rootVersion = this.#rootVersion;
    if (this.#top?.timestamp !== timestamp) {
      this.#top = { timestamp, files: await this.#filesUnder(timestamp) };
    }
    const [, ...rest] = this.#top.files;
    if (nonce === undefined) return { rootVersion, files: this.#top.files };
    return { rootVersion, files: [[TIMESTAMP_FILE, this.#withNonce(timestamp, nonce)], ...rest] };
  }

  async #filesUnder(timestamp: Uint8Array): Promise<TopMetadata['files']> {
    const snapshotName = versionedName(
      tuf.parseEnvelope(timestamp, 'timestamp').signed.snapshotMeta.version,
      'snapshot',
    );
    const snapshot = await readMetadata(this.dir, snapshotName);
    if (snapshot === undefined) throw new Error(`${snapshotName} is missing`);
    const targetsVersion = tuf.parseEnvelope(snapshot, 'snapshot').signed.meta.get('targets.json');
    const targetsName = versionedName(targetsVersion?.version ?? 0, 'targets');
    const targets = await readMetadata(this.dir, targetsName);
    if (targets === undefined) throw new Error(`${targetsName} is missing`);
    return [
      [TIMESTAMP_FILE, timestamp],
      [snapshotName, snapshot],
      [targetsName, targets],
    ];
  }

  /** The timestamp as is, or signed for this request with its nonce (§TUF repository, Nonce). */
  #withNonce(timestamp: Uint8Array, nonce: string | undefined): Uint8Array {
    if (nonce === undefined) return timestamp;
    return timestampWithNonce(timestamp, nonce, toTufSigner(this.deps.trust().freshness));
  }

  /**
   * Brings root 1, targets, snapshot and timestamp up to date; the timestamp bytes. Updates run
   * one at a time; callers arriving while one runs join the one queued after it (it starts
   * after they asked, so it sees what they would), so a burst of requests costs two updates.
   */
  update(): Promise<Uint8Array | undefined> {
    if (this.#next !== undefined) return this.#next;
    const run = this.#queue.then(() => {
      this.#next = undefined;
      return this.#update();
    });
    this.#next = run;
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #update(): Promise<Uint8Array | undefined> {
    const trust = this.deps.trust();
    // What this update writes it also notes in the held versions: the watcher's event for its
    // own file may come after the next update starts.
    const { versions } = await this.#versionsNow(trust, this.deps.current());
    this.#rootVersion = versions.root;
    if (versions.root === 0) {
      const first = trust.chain.first;
      // Root 1 is key set 1 signed by the node key (the interface's node_pubkey).
      if (first === undefined || trust.root === undefined || first.root.threshold !== 1) {
        return undefined;
      }
      await writeRoot(this.deps.dataDir, first, [trust.root], this.deps.now());
      this.#rootVersion = 1;
      versions.root = 1;
    }
    const targetsVersion = await this.#syncTargets(trust, versions.targets);
    versions.targets = targetsVersion;
    if (targetsVersion === 0) return undefined;
    return this.online.current(targetsVersion, toTufSigner(trust.freshness));
  }

  /** Signs targets N+1 when the release moved or half its lifetime is gone and the key is here. */
  async #syncTargets(trust: TrustKeys, latest: number): Promise<number> {
    const release = this.deps.current();
    if (release === undefined || trust.release === undefined) return latest;
    const nowMs = this.deps.now();
    if (latest > 0) {
      const summary = await this.#summaryOf(latest);
      const halfGone = nowMs >= summary.expiresMs - (TARGETS_LIFETIME_S * 1000) / 2;
      // A rotated targets key re-signs at once: root N+1 may no longer trust the old one.
      const sameKey = summary.keyids.includes(tuf.tufKeyId(trust.release.hex));
      if (summary.registryVersion === release.manifest.registry_version && !halfGone && sameKey) {
        return latest;
      }
    }
    const signed = targetsFor(release.manifest, latest + 1, nowMs);
    const bytes = tuf.signMetadata(signed, [toTufSigner(trust.release)]);
    await writeFileAtomic(join(this.dir, versionedName(latest + 1, 'targets')), bytes);
    return latest + 1;
  }

  async #summaryOf(version: number): Promise<ReturnType<typeof targetsSummary>> {
    if (this.#summary?.version !== version) {
      const bytes = (await readMetadata(this.dir, versionedName(version, 'targets'))) as Buffer;
      this.#summary = { version, summary: targetsSummary(bytes) };
    }
    return this.#summary.summary;
  }
}
