/**
 * Ports of the chunked download (docs/UPDATER.md §9), beside the whole-file ones in ports.ts:
 * the held blobs seen as chunks, and a partial file written at chunk offsets with a durable
 * record of the chunks already verified into it.
 */
import type { Section, TreeLayout } from '#protocol/chunk-index.js';
import type { ChunkerParams } from '#protocol/fastcdc.js';
import type { LocalChunks } from './local-chunks.js';

export interface ChunkStore {
  /**
   * Every chunk and subtree of the held blobs, cut with these parameters (the adapter caches
   * the trees it computes). Blobs under `minBlobBytes` are left out.
   */
  localChunks(params: ChunkerParams, layout: TreeLayout): Promise<LocalChunks>;
  /** Caches the tree of a blob just assembled from `level0`, so it is never read to learn it. */
  rememberTree(
    sha256: string,
    level0: Section,
    size: number,
    params: ChunkerParams,
    layout: TreeLayout,
  ): Promise<void>;
  /**
   * Caches the published tree of a blob fetched whole: its index blob and chunk list as
   * fetched, both checked by the caller against the signed digest (docs/UPDATER.md §9.1).
   */
  keepPublishedTree(
    sha256: string,
    indexBytes: Uint8Array,
    listBytes: Uint8Array,
    params: ChunkerParams,
    layout: TreeLayout,
  ): Promise<void>;
  /**
   * Reads `into.length` bytes of a held blob at `offset` into `into` (reused by the caller so
   * a long copy allocates nothing); answers the bytes read, fewer only if the blob is shorter.
   */
  readBlob(sha256: string, offset: number, into: Uint8Array): Promise<Uint8Array>;
  /** Closes the files `readBlob` keeps open between reads (called when an assembly ends). */
  closeReads(): Promise<void>;
  /**
   * Opens (or resumes) the chunked partial of an artifact. `planId` names the chunk layout
   * (the index digest): a record written under another layout is dropped.
   */
  openChunkedPartial(
    artifact: { readonly sha256: string; readonly size: number },
    planId: string,
  ): Promise<ChunkedPartial>;
}

/** An artifact being assembled from chunks in a file of its final size. */
export interface ChunkedPartial {
  /**
   * Chunks recorded by an earlier run, re-hashed on open (a record is never trusted alone):
   * artifact offset -> chunk length. Fixed at open: what this run writes is not added.
   */
  readonly verified: ReadonlyMap<number, number>;
  /**
   * Writes a run of consecutive chunks at `offset` (`chunks`: their level 0 entries from the
   * signed index, lengths adding up to `bytes.length`), then appends them to the record; data
   * and record are fsynced in batches and on close. Fetched chunks come verified; held ones
   * unhashed (the whole SHA-256 checks them, docs/UPDATER.md §9.1): the record is never
   * trusted alone, a resume re-hashes every entry.
   */
  write(offset: number, bytes: Uint8Array, chunks: Section): Promise<void>;
  /** Reads back bytes already written (for a chunk repeated inside the artifact). */
  read(offset: number, length: number): Promise<Uint8Array>;
  /**
   * Flushes, checks the whole file's size and SHA-256 against the signed values and promotes
   * it into the blob store (HASH_MISMATCH, and the partial dropped, if it does not match).
   * `sha256`: the whole file's digest as the caller hashed it in one pass over every byte it
   * wrote or read back (sweep.ts), so the file is not read again; without it the file
   * is re-read and hashed here.
   */
  complete(sha256?: string): Promise<void>;
  /** Flushes and closes, keeping the file and its record for a later resume. */
  close(): Promise<void>;
}
