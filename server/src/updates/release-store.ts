/**
 * Signed releases on disk: `<dataDir>/releases/<registry_version>.json` holds the exact
 * envelope bytes served by GET /api/updates/manifest (never re-encoded). The current release
 * is the highest semver; the bytes of the current one are kept in memory.
 */
import { watch } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import semver from 'semver';
import {
  MANIFEST_PAYLOAD_TYPE,
  pae,
  type ParsedManifest,
  parseEnvelope,
  parseManifest,
  verifyEd25519,
} from '../../../src/protocol/index.js';
import { writeFileAtomic } from '../../../src/shared/atomic-file.js';
import { errorClass } from '../server-error.js';

export const RELEASES_DIR = 'releases';

export interface Release {
  readonly manifest: ParsedManifest;
  /** The envelope JSON exactly as served. */
  readonly envelope: Buffer;
}

/** Thrown at start when a stored release is unreadable or signed by another key. */
export const ReleaseStoreError = errorClass('ReleaseStoreError', 'RELEASE_STORE_INVALID');
export type ReleaseStoreError = InstanceType<typeof ReleaseStoreError>;

export class ReleaseStore {
  readonly dir: string;
  #current: Release | undefined;
  #highest: string | undefined;
  /** Bumped when a clear starts and ends: a load that overlapped one drops what it read. */
  #epoch = 0;

  constructor(
    dataDir: string,
    private readonly publicKey: Uint8Array,
  ) {
    this.dir = join(dataDir, RELEASES_DIR);
  }

  /** Loads every stored release; fails closed if one does not verify under the node key. */
  async load(): Promise<void> {
    const epoch = this.#epoch;
    await mkdir(this.dir, { recursive: true });
    for (const entry of await readdir(this.dir)) {
      if (!entry.endsWith('.json') || entry.startsWith('.')) continue;
      let bytes: Buffer;
      try {
        bytes = await readFile(join(this.dir, entry));
      } catch (error) {
        // Removed between readdir and read (a concurrent reset): nothing to serve.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      // A clear ran meanwhile (dev reset): what was read may be deleted, with its blobs.
      if (epoch !== this.#epoch) return;
      this.#consider({ manifest: this.#check(bytes, entry), envelope: bytes });
    }
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

  /** Stores a signed release atomically and makes it current if it is the highest. */
  async save(release: Release): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await writeFileAtomic(
      join(this.dir, `${release.manifest.registry_version}.json`),
      release.envelope,
    );
    this.#consider(release);
  }

  /** Removes every release (dev reset). */
  async clear(): Promise<void> {
    this.#epoch++;
    // The files go, the directory stays (a watcher may be attached to it).
    await mkdir(this.dir, { recursive: true });
    for (const entry of await readdir(this.dir)) {
      await rm(join(this.dir, entry), { recursive: true, force: true });
    }
    this.#current = undefined;
    this.#highest = undefined;
    this.#epoch++;
  }

  #consider(release: Release): void {
    const v = release.manifest.registry_version;
    if (this.#highest === undefined || semver.gt(v, this.#highest)) {
      this.#highest = v;
      this.#current = release;
    }
  }

  #check(bytes: Uint8Array, entry: string): ParsedManifest {
    try {
      const env = parseEnvelope(bytes);
      const signed = env.signatures.some((s) =>
        verifyEd25519(s.sig, pae(env.payloadType, env.payload), this.publicKey),
      );
      if (env.payloadType !== MANIFEST_PAYLOAD_TYPE || !signed) {
        throw new Error('not a manifest envelope signed by this node key');
      }
      return parseManifest(env.payload);
    } catch (cause) {
      throw new ReleaseStoreError(`stored release ${entry} is unusable`, { cause });
    }
  }
}
