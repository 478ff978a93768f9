/**
 * Files -> a release (docs/PROTOCOL.md §2.7.2): names checked and sorted, every file hashed,
 * URLs chosen, and the payload checked by the protocol's own parser, so nothing is signed that
 * a client would refuse. Shared by publish (which stores the blobs as it hashes them) and the
 * offline `sign-release` (which only hashes).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import {
  CHUNK_INDEX_MIN_BYTES,
  ChunkIndexBuilder,
  compareNames,
  encodeRelease,
  isStrictSemver,
  parseRelease,
  ProtocolError,
  unsafeNameReason,
  type ManifestArtifact,
  type Release,
  type ServerErrorCode,
} from '#protocol';
import { HttpError } from '../../http/http-error.js';
import type { BlobInfo } from '../../store/blob-store.js';

export const MAX_PUBLISH_ARTIFACTS = 10_000;
export const ARTIFACT_ROUTE_PREFIX = 'api/updates/artifacts/';

/** One artifact to publish: bytes in memory or a file streamed from disk. */
export type PublishArtifact =
  | { readonly name: string; readonly content: Uint8Array }
  | { readonly name: string; readonly path: string };

export interface ReleaseInput {
  readonly registry_version: string;
  readonly artifacts: readonly PublishArtifact[];
  /** Serve artifacts from another host: urls become `<artifact_base_url>/<sha256>`. */
  readonly artifact_base_url?: string;
  /** Release notes (Markdown), signed inside the release (docs/PROTOCOL.md §2.2 `notes`). */
  readonly notes?: string;
}

/** Where the bytes of an artifact go while they are hashed. */
export type PutArtifact = (artifact: PublishArtifact) => Promise<BlobInfo>;

/** Adds each small artifact's pack (pack-builder.ts), given the URL a blob is served at. */
export type PackArtifacts = (
  artifacts: readonly ManifestArtifact[],
  urlOf: (sha256: string) => string,
) => Promise<ManifestArtifact[]>;

export const invalid = (code: ServerErrorCode, message: string): never => {
  throw new HttpError(400, code, message);
};

/** A ProtocolError of the payload parsers as a 400 with the same code. */
export function asHttpError(error: unknown): unknown {
  return error instanceof ProtocolError ? new HttpError(400, error.code, error.message) : error;
}

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

export function checkVersion(version: unknown): string {
  if (typeof version !== 'string' || !isStrictSemver(version)) {
    invalid('INVALID_VERSION', 'registry_version must be a strict semver such as 1.2.3');
  }
  return version as string;
}

/** Checks the names (each, and as a set) before any byte is read; returns them sorted. */
export function checkArtifactList(artifacts: unknown): PublishArtifact[] {
  if (!Array.isArray(artifacts) || artifacts.length > MAX_PUBLISH_ARTIFACTS) {
    invalid('INVALID_ARTIFACTS', `artifacts must be a list of at most ${MAX_PUBLISH_ARTIFACTS}`);
  }
  for (const a of artifacts as PublishArtifact[]) {
    const name: unknown = a.name;
    const reason = typeof name === 'string' ? unsafeNameReason(name) : 'is not a string';
    if (reason !== undefined) {
      invalid('UNSAFE_NAME', `artifact name ${JSON.stringify(name) ?? ''} ${reason}`);
    }
  }
  const sorted = [...(artifacts as PublishArtifact[])].sort((a, b) => compareNames(a.name, b.name));
  // Set rules (duplicates, case folds, file-vs-directory), with placeholder digests.
  const placeholder = '0'.repeat(64);
  checkPayload({
    registry_version: '0.0.0',
    artifacts: sorted.map((a) => ({ name: a.name, size: 0, sha256: placeholder, url: 'x' })),
  });
  return sorted;
}

/** The exact payload bytes of `release`, refused (400, the parser's code) if a client would. */
export function checkPayload(release: Release): Uint8Array {
  const payload = encodeRelease(release);
  try {
    parseRelease(payload);
  } catch (error) {
    throw asHttpError(error);
  }
  return payload;
}

/** Builds and checks the release; `put` receives every file's bytes once, in name order. */
export async function buildRelease(
  input: ReleaseInput,
  put: PutArtifact,
  pack?: PackArtifacts,
): Promise<{ release: Release; payload: Uint8Array }> {
  const version = checkVersion(input.registry_version);
  const base =
    input.artifact_base_url === undefined
      ? undefined
      : checkArtifactBaseUrl(input.artifact_base_url);
  const sorted = checkArtifactList(input.artifacts);
  const urlOf = (sha256: string): string =>
    base === undefined ? `${ARTIFACT_ROUTE_PREFIX}${sha256}` : `${base}/${sha256}`;
  const artifacts: ManifestArtifact[] = [];
  for (const a of sorted) {
    const blob = await put(a);
    const entry = { name: a.name, size: blob.size, sha256: blob.sha256, url: urlOf(blob.sha256) };
    const index = blob.chunkIndex;
    if (index === undefined) {
      artifacts.push(entry);
      continue;
    }
    // docs/PROTOCOL.md §2.6: the index digest is signed here; its list is a sibling blob.
    const ref = { sha256: index.sha256, size: index.size, url: urlOf(index.sha256) };
    const chunk_index =
      index.listSha256 === undefined ? ref : { ...ref, list_url: urlOf(index.listSha256) };
    artifacts.push({ ...entry, chunk_index });
  }
  const packed = pack === undefined ? artifacts : await pack(artifacts, urlOf);
  const release: Release = {
    registry_version: version,
    artifacts: packed,
    ...(input.notes === undefined ? {} : { notes: input.notes }),
  };
  // The client's own parser judges the notes too (cap, control characters): refused with 400.
  return { release, payload: checkPayload(release) };
}

/**
 * Hashes an artifact without storing it (offline signing), with the chunk index the server
 * will build from the same bytes at publish (§2.6: FastCDC is deterministic).
 */
export async function hashArtifact(artifact: PublishArtifact): Promise<BlobInfo> {
  const size = 'content' in artifact ? artifact.content.length : (await stat(artifact.path)).size;
  const builder = size >= CHUNK_INDEX_MIN_BYTES ? new ChunkIndexBuilder() : undefined;
  const hash = createHash('sha256');
  const feed = (chunk: Uint8Array): void => {
    if (builder === undefined) hash.update(chunk);
    else builder.update(chunk);
  };
  if ('content' in artifact) feed(artifact.content);
  else
    for await (const chunk of createReadStream(artifact.path) as AsyncIterable<Buffer>) feed(chunk);
  if (builder === undefined) return { sha256: hash.digest('hex'), size };
  const built = builder.finish();
  const sha = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
  return {
    sha256: built.index.artifactSha256,
    size,
    chunkIndex: {
      sha256: sha(built.indexBytes),
      size: built.indexBytes.length,
      ...(built.listBytes.length === 0 ? {} : { listSha256: sha(built.listBytes) }),
    },
  };
}
