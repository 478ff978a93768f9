/**
 * Signed releases on disk (docs/PROTOCOL.md §2.7.2, §2.7.8): `<dataDir>/releases/<version>.json`
 * holds the release envelope exactly as signed (format 2), and `<dataDir>/legacy/<version>.json`
 * the format 1 envelope that old clients read, when the root key signed one (§2.7.7). The
 * current release is the highest semver, and it must verify under the release role of the
 * newest key set before it is served; older ones are only parsed (their keys may be retired).
 * A format 1 file found in releases/ (a data directory from before format 2) is handed to
 * the caller to migrate.
 */
import { watch } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import semver from 'semver';
import {
  envelopeFromJson,
  MANIFEST_PAYLOAD_TYPE,
  parseManifest,
  parseRelease,
  RELEASE_PAYLOAD_TYPE,
  releaseDigest,
  type DsseEnvelope,
  type ManifestArtifact,
  type ParsedEnvelope,
} from '#protocol';
import { writeFileAtomic } from '#shared/atomic-file.js';
import { errorClass } from '../../server-error.js';

export const RELEASES_DIR = 'releases';
export const LEGACY_DIR = 'legacy';

export interface Release {
  /** What the release is; `expiresAtMs` is the format 1 envelope's (Infinity without one). */
  readonly manifest: {
    readonly registry_version: string;
    readonly artifacts: readonly ManifestArtifact[];
    /** The release notes signed with it (docs/PROTOCOL.md §2.2), for the TUF targets. */
    readonly notes?: string;
    readonly expiresAtMs: number;
  };
  /** The release envelope as signed (format 2). */
  readonly envelope: DsseEnvelope;
  /** The release digest (SHA-256 of the payload) that freshness statements name. */
  readonly digest: string;
  /** The format 1 envelope JSON for clients that predate format 2, when there is one. */
  readonly legacy: Buffer | undefined;
}

/** A format 1 envelope found where a release should be (to migrate, §2.7.7). */
export interface FormatOneRelease {
  readonly entry: string;
  readonly bytes: Buffer;
}

/** Thrown when a stored release is unreadable or the current one does not verify. */
export const ReleaseStoreError = errorClass('ReleaseStoreError', 'RELEASE_STORE_INVALID');
export type ReleaseStoreError = InstanceType<typeof ReleaseStoreError>;

/** Checks a release envelope under the release role of the newest key set (throws if not). */
export type ReleaseVerifier = (envelope: ParsedEnvelope) => void;

/** A release from its envelope (and optional format 1 envelope); parses, verifies nothing. */
export function releaseOf(envelope: DsseEnvelope, legacy?: Buffer): Release {
  const parsed = envelopeFromJson(envelope, 'release');
  if (parsed.payloadType !== RELEASE_PAYLOAD_TYPE) throw new Error('not a release envelope');
  const release = parseRelease(parsed.payload);
  return {
    manifest: {
      registry_version: release.registry_version,
      artifacts: release.artifacts,
      ...(release.notes === undefined ? {} : { notes: release.notes }),
      expiresAtMs:
        legacy === undefined
          ? Number.POSITIVE_INFINITY
          : parseManifest(envelopeFromJson(JSON.parse(legacy.toString()), 'legacy').payload)
              .expiresAtMs,
    },
    envelope: {
      payloadType: envelope.payloadType,
      payload: envelope.payload,
      signatures: envelope.signatures,
    },
    digest: releaseDigest(parsed.payload),
    legacy,
  };
}

export class ReleaseStore {
  readonly dir: string;
  readonly legacyDir: string;
  #current: Release | undefined;
  #highest: string | undefined;
  /** Bumped when a clear starts and ends: a load that overlapped one drops what it read. */
  #epoch = 0;

  constructor(
    dataDir: string,
    private readonly verify: ReleaseVerifier,
  ) {
    this.dir = join(dataDir, RELEASES_DIR);
    this.legacyDir = join(dataDir, LEGACY_DIR);
  }

  /**
   * Loads the stored releases. The highest becomes current only once it verifies; otherwise
   * nothing changes and the load throws. Returns the format 1 files it skipped.
   */
  async load(): Promise<FormatOneRelease[]> {
    const epoch = this.#epoch;
    await mkdir(this.dir, { recursive: true });
    const found: Release[] = [];
    const formatOne: FormatOneRelease[] = [];
    for (const entry of await readdir(this.dir)) {
      if (!entry.endsWith('.json') || entry.startsWith('.')) continue;
      const bytes = await readIfThere(join(this.dir, entry));
      // Removed between readdir and read (a concurrent reset): nothing to serve.
      if (bytes === undefined) continue;
      let json: unknown;
      try {
        json = JSON.parse(bytes.toString('utf8'));
        if (envelopeFromJson(json, entry).payloadType === MANIFEST_PAYLOAD_TYPE) {
          formatOne.push({ entry, bytes });
          continue;
        }
        const version = entry.slice(0, -'.json'.length);
        const legacy = await readIfThere(join(this.legacyDir, `${version}.json`));
        found.push(releaseOf(json as DsseEnvelope, legacy));
      } catch (cause) {
        throw new ReleaseStoreError(`stored release ${entry} is unusable`, { cause });
      }
    }
    // A clear ran meanwhile (dev reset): what was read may be deleted, with its blobs.
    if (epoch !== this.#epoch) return [];
    let best = this.#current;
    let highest = this.#highest;
    for (const release of found) {
      const v = release.manifest.registry_version;
      if (highest === undefined || semver.gt(v, highest)) highest = v;
      const bestVersion = best?.manifest.registry_version;
      // Higher, or the same release signed anew (a re-signature published by another process).
      const resigned =
        v === bestVersion && JSON.stringify(release.envelope) !== JSON.stringify(best?.envelope);
      if (bestVersion === undefined || semver.gt(v, bestVersion) || resigned) best = release;
    }
    if (best !== undefined && best !== this.#current) this.#verify(best);
    this.#current = best;
    this.#highest = highest;
    return formatOne;
  }

  /**
   * Picks up releases written by another process (the `publish` CLI on the same data dir):
   * the directory is watched and re-loaded (re-verified) shortly after a change. A release
   * that does not verify is reported to `onError` and never served.
   */
  watch(onError: (error: unknown) => void): { close(): void } {
    let timer: NodeJS.Timeout | undefined;
    const watcher = watch(this.dir, () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        this.load().catch(onError);
      }, 50);
    });
    watcher.on('error', onError);
    return {
      close: () => {
        clearTimeout(timer);
        watcher.close();
      },
    };
  }

  /** The release served now, if any. */
  get current(): Release | undefined {
    return this.#current;
  }

  /** The highest registry_version ever stored (publishing must go above it). */
  get highestVersion(): string | undefined {
    return this.#highest;
  }

  /**
   * Stores a release atomically (its format 1 envelope first, so a crash never leaves a
   * release whose old-client envelope is missing) and makes it current if it is the highest or
   * replaces the current one (new signatures over the same payload).
   */
  async save(release: Release): Promise<void> {
    const version = release.manifest.registry_version;
    if (release.legacy !== undefined) {
      await mkdir(this.legacyDir, { recursive: true });
      await writeFileAtomic(join(this.legacyDir, `${version}.json`), release.legacy);
    }
    await mkdir(this.dir, { recursive: true });
    await writeFileAtomic(
      join(this.dir, `${version}.json`),
      `${JSON.stringify(release.envelope)}\n`,
    );
    const current = this.#current?.manifest.registry_version;
    if (current === undefined || !semver.lt(version, current)) this.#current = release;
    if (this.#highest === undefined || semver.gt(version, this.#highest)) this.#highest = version;
  }

  /** Removes every release (dev reset). */
  async clear(): Promise<void> {
    this.#epoch++;
    // The files go, the directories stay (a watcher may be attached to releases/).
    for (const dir of [this.dir, this.legacyDir]) {
      await mkdir(dir, { recursive: true });
      for (const entry of await readdir(dir)) {
        await rm(join(dir, entry), { recursive: true, force: true });
      }
    }
    this.#current = undefined;
    this.#highest = undefined;
    this.#epoch++;
  }

  #verify(release: Release): void {
    try {
      this.verify(envelopeFromJson(release.envelope, 'release'));
    } catch (cause) {
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw new ReleaseStoreError(
        `release ${release.manifest.registry_version} does not verify under the newest key set (${reason}); sign it with the current release keys (sign-release --bundle) and publish it again`,
        { cause },
      );
    }
  }
}

async function readIfThere(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
