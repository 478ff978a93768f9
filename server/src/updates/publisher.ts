/**
 * Publishing a release: validate, store the blobs, build the manifest, sign it with the node
 * key, store the envelope. Used by the in-process publish(), POST /api/dev/releases and the
 * `publish` CLI. Publishes are serialised so the version check and the write are one step.
 */
import semver from 'semver';
import {
  CHUNK_INDEX_MIN_BYTES,
  compareNames,
  encodeManifest,
  isStrictSemver,
  type Manifest,
  type ManifestArtifact,
  type ServerErrorCode,
  parseManifest,
  ProtocolError,
  signEnvelope,
  unsafeNameReason,
} from '../../../src/protocol/index.js';
import type { ServerClock } from '../clock.js';
import { HttpError } from '../http/http-error.js';
import type { BlobInfo, BlobStore } from '../store/blob-store.js';
import type { NodeKey } from './node-key.js';
import type { ReleaseStore } from './release-store.js';

export const DEFAULT_EXPIRES_IN_S = 7 * 24 * 3600;
export const MAX_EXPIRES_IN_S = 366 * 24 * 3600;
export const MAX_PUBLISH_ARTIFACTS = 10_000;
export const ARTIFACT_ROUTE_PREFIX = 'api/updates/artifacts/';

/** One artifact to publish: bytes in memory or a file streamed from disk. */
export type PublishArtifact =
  | { readonly name: string; readonly content: Uint8Array }
  | { readonly name: string; readonly path: string };

export interface PublishInput {
  readonly registry_version: string;
  readonly artifacts: readonly PublishArtifact[];
  /** Manifest lifetime in seconds (default 7 days). */
  readonly expires_in_s?: number;
  /** Serve artifacts from another host: urls become `<artifact_base_url>/<sha256>`. */
  readonly artifact_base_url?: string;
}

export interface PublishResult {
  readonly ok: true;
  readonly registry_version: string;
  readonly issued_at: string;
  readonly expires_at: string;
  readonly keyid: string;
  readonly artifacts: readonly ManifestArtifact[];
}

const invalid = (code: ServerErrorCode, message: string): never => {
  throw new HttpError(400, code, message);
};

/** Checks an optional artifact base URL: absolute http(s), no query or fragment. */
export function checkArtifactBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return invalid('INVALID_ARTIFACT_BASE_URL', 'artifact_base_url is not an absolute URL');
  }
  if (
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== '' ||
    value.length > 1024
  ) {
    invalid('INVALID_ARTIFACT_BASE_URL', 'artifact_base_url must be http(s) without query');
  }
  return value.replace(/\/+$/, '');
}

export class Publisher {
  #chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly key: NodeKey,
    private readonly releases: ReleaseStore,
    private readonly blobs: BlobStore,
    private readonly clock: ServerClock,
  ) {}

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

  async #publish(input: PublishInput): Promise<PublishResult> {
    const version = input.registry_version;
    if (typeof version !== 'string' || !isStrictSemver(version)) {
      invalid('INVALID_VERSION', 'registry_version must be a strict semver such as 1.2.3');
    }
    const floor = this.releases.highestVersion;
    if (floor !== undefined && !semver.gt(version, floor)) {
      throw new HttpError(
        409,
        'VERSION_NOT_INCREASING',
        `registry_version ${version} is not above the published ${floor}`,
      );
    }
    const expiresInS = input.expires_in_s ?? DEFAULT_EXPIRES_IN_S;
    if (!Number.isSafeInteger(expiresInS) || expiresInS < 1 || expiresInS > MAX_EXPIRES_IN_S) {
      invalid('INVALID_EXPIRY', `expires_in_s must be an integer from 1 to ${MAX_EXPIRES_IN_S}`);
    }
    const base =
      input.artifact_base_url === undefined
        ? undefined
        : checkArtifactBaseUrl(input.artifact_base_url);
    if (!Array.isArray(input.artifacts) || input.artifacts.length > MAX_PUBLISH_ARTIFACTS) {
      invalid('INVALID_ARTIFACTS', `artifacts must be a list of at most ${MAX_PUBLISH_ARTIFACTS}`);
    }
    for (const a of input.artifacts) {
      const name: unknown = a.name;
      const reason = typeof name === 'string' ? unsafeNameReason(name) : 'is not a string';
      if (reason !== undefined) {
        invalid('UNSAFE_NAME', `artifact name ${JSON.stringify(name) ?? ''} ${reason}`);
      }
    }
    const sorted = [...input.artifacts].sort((a, b) => compareNames(a.name, b.name));
    // Set rules (duplicates, case folds, file-vs-directory) checked before any blob is written.
    const placeholder = '0'.repeat(64);
    this.#validate(sorted.map((a) => ({ name: a.name, size: 0, sha256: placeholder, url: 'x' })));

    const stored: BlobInfo[] = [];
    const put = { chunkIndexMinBytes: CHUNK_INDEX_MIN_BYTES };
    for (const a of sorted) {
      stored.push(
        'content' in a
          ? await this.blobs.putBytes(a.content, put)
          : await this.blobs.putFile(a.path, put),
      );
    }
    const urlOf = (sha256: string): string =>
      base === undefined ? `${ARTIFACT_ROUTE_PREFIX}${sha256}` : `${base}/${sha256}`;
    const now = this.clock.now();
    const manifest: Manifest = {
      registry_version: version,
      issued_at: new Date(now).toISOString(),
      expires_at: new Date(now + expiresInS * 1000).toISOString(),
      artifacts: sorted.map((a, i) => {
        const blob = stored[i] as BlobInfo;
        const entry = {
          name: a.name,
          size: blob.size,
          sha256: blob.sha256,
          url: urlOf(blob.sha256),
        };
        const index = blob.chunkIndex;
        if (index === undefined) return entry;
        // docs/PROTOCOL.md §2.6: the index digest is signed here; its list is a sibling blob.
        const ref = { sha256: index.sha256, size: index.size, url: urlOf(index.sha256) };
        const chunk_index =
          index.listSha256 === undefined ? ref : { ...ref, list_url: urlOf(index.listSha256) };
        return { ...entry, chunk_index };
      }),
    };
    const payload = encodeManifest(manifest);
    const parsed = this.#validate(manifest.artifacts, payload);
    const envelope = signEnvelope(payload, this.key.secretKey, this.key.publicKey);
    await this.releases.save({ manifest: parsed, envelope: Buffer.from(JSON.stringify(envelope)) });
    return {
      ok: true,
      registry_version: version,
      issued_at: manifest.issued_at,
      expires_at: manifest.expires_at,
      keyid: envelope.signatures[0]?.keyid ?? '',
      artifacts: manifest.artifacts,
    };
  }

  // The protocol's own parser is the judge: what we sign must be what clients accept.
  #validate(artifacts: readonly ManifestArtifact[], payload?: Uint8Array) {
    const bytes =
      payload ??
      encodeManifest({
        registry_version: '0.0.0',
        issued_at: '2000-01-01T00:00:00.000Z',
        expires_at: '2000-01-02T00:00:00.000Z',
        artifacts,
      });
    try {
      return parseManifest(bytes);
    } catch (error) {
      if (error instanceof ProtocolError) throw new HttpError(400, error.code, error.message);
      throw error;
    }
  }
}
