/**
 * One signed artifact entry as parsed (docs/PROTOCOL.md §2.2), apart from the parser so that
 * the packs' wire form (`pack-wire.ts`) can name it without importing the parser back.
 */
import type { PackRef } from './pack-ref.js';

export interface ManifestArtifact {
  /** Relative POSIX path under the install root. */
  readonly name: string;
  /** Exact length in bytes. */
  readonly size: number;
  /** Lowercase hex SHA-256 of the content. */
  readonly sha256: string;
  /** Absolute URL, or a path relative to the base URL. Untrusted: bytes are checked. */
  readonly url: string;
  /** Where to find the artifact's signed chunk index, when one was published (§2.6). */
  readonly chunk_index?: ChunkIndexRef;
  /** The pack this artifact is also a member of (docs/PROTOCOL.md §2.8). */
  readonly pack?: PackRef;
}

/**
 * The reference from a signed artifact entry to its chunk index (docs/PROTOCOL.md §2.6): the
 * index blob's SHA-256 and exact size are signed here, so the index (and through it every
 * chunk hash) is bound to the release without listing the chunks in the manifest.
 */
export interface ChunkIndexRef {
  /** Lowercase hex SHA-256 of the index blob. */
  readonly sha256: string;
  /** Exact length of the index blob in bytes (at most MAX_CHUNK_INDEX_BYTES). */
  readonly size: number;
  /** Absolute URL, or a path relative to the base URL, of the index blob. */
  readonly url: string;
  /** URL of the chunk list blob; present exactly when the index names a non-empty list. */
  readonly list_url?: string;
}
