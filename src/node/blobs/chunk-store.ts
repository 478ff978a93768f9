/**
 * The chunk side of the blob store (docs/UPDATER.md §9): the chunk trees of held blobs, cached
 * in `.updater/chunks/<layout>/<sha256>` (the index blob followed by the chunk list, the wire
 * format of docs/PROTOCOL.md §2.6, re-verified on load), reads of held blobs, and chunked
 * partials. A tree is computed once per blob and layout: after a chunked download from the
 * chunks just assembled (no extra read), otherwise by reading the blob once when first needed.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, readFile, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChunkStore, ChunkedPartial } from '#core/chunks/index.js';
import { buildLocalChunks, type LocalChunks } from '#core/chunks/index.js';
import {
  buildChunkTree,
  ChunkIndexBuilder,
  type ChunkTree,
} from '#protocol/chunk-index-builder.js';
import { parseChunkIndex, readWholeTree } from '#protocol/chunk-index-parse.js';
import { indexBlobLength } from '#protocol/chunk-index-wire.js';
import {
  CHUNK_INDEX_HEADER_BYTES,
  type ChunkIndex,
  type Section,
  type TreeLayout,
} from '#protocol/chunk-index.js';
import type { ChunkerParams } from '#protocol/fastcdc.js';
import { SHA256_HEX } from '#protocol/manifest.js';
import { writeFileAtomic } from '#shared/atomic-file.js';
import { openChunkedPartial } from './chunked-partial.js';
import { isIntactBlob } from './intact-blob.js';
import { withOptimisingTier } from '../v8-tier.js';

/** Held blobs below this size are not chunked (a whole-file fetch of them is cheap). */
export const LOCAL_CHUNKING_MIN_BYTES = 1024 * 1024;

export interface FileChunkStoreOptions {
  readonly blobDir: string;
  readonly partialDir: string;
  /** `.updater/chunks`. */
  readonly cacheDir: string;
  readonly minBlobBytes?: number;
  /** Crash tests: called after each chunk record append. */
  readonly onRecorded?: () => void;
  readonly onPromoted?: () => void;
  /**
   * Told the bytes of each read while a held blob's tree is computed (the CLI paces a minor
   * GC on it, read-buffer-gc.ts: each chunk's hash leaves garbage V8 would free late).
   */
  readonly onRead?: (bytes: number) => void;
}

/** The chunker part of a cache directory's name: trees under it hold the same chunks. */
const chunkerKey = (params: ChunkerParams): string =>
  `fastcdc1-${params.minSize}-${params.avgSize}-${params.maxSize}-`;

/**
 * The cache directory of a layout (format 1 keeps the name it had before format 2, so the
 * caches clients already hold are found and regrouped, not read again).
 */
export function chunkLayoutKey(params: ChunkerParams, layout: TreeLayout): string {
  const { format, fanoutBits, sectionMin, sectionMax } = layout;
  const tree = format === 1 ? '' : `v${format}-s${sectionMin}-${sectionMax}-`;
  return `${chunkerKey(params)}${tree}f${fanoutBits}`;
}

/** Held blobs kept open for reading at once (an assembly reads from a few). */
const MAX_OPEN_READERS = 8;

export class FileChunkStore implements ChunkStore {
  private readonly readers = new Map<string, Promise<FileHandle>>();

  constructor(private readonly options: FileChunkStoreOptions) {}

  async localChunks(params: ChunkerParams, layout: TreeLayout): Promise<LocalChunks> {
    const key = chunkLayoutKey(params, layout);
    const dir = join(this.options.cacheDir, key);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const trees: { blob: string; tree: ChunkTree }[] = [];
    const held = new Set<string>();
    for (const name of await readdir(this.options.blobDir)) {
      if (!SHA256_HEX.test(name)) continue;
      // lstat: a link planted among the blobs is not a blob (never followed).
      const info = await lstat(join(this.options.blobDir, name)).catch(() => undefined);
      if (info === undefined || info.size < (this.options.minBlobBytes ?? LOCAL_CHUNKING_MIN_BYTES))
        continue;
      // A blob written since promotion is not trusted as a source (its chunks are re-hashed
      // on copy anyway; leaving it out saves the reads).
      if (!isIntactBlob(info, info.size)) continue;
      const tree =
        (await this.loadTree(dir, name, info.size)) ??
        (await this.regroupTree(key, name, info.size, params, layout)) ??
        (await withOptimisingTier(() => this.computeTree(dir, name, params, layout)).catch(
          () => undefined,
        ));
      if (tree === undefined) continue;
      held.add(name);
      trees.push({ blob: name, tree });
    }
    await this.prune(key, dir, held);
    return buildLocalChunks(trees);
  }

  async rememberTree(
    sha256: string,
    level0: Section,
    size: number,
    params: ChunkerParams,
    layout: TreeLayout,
  ): Promise<void> {
    const built = buildChunkTree(level0, size, sha256, params, layout);
    await this.keepPublishedTree(sha256, built.indexBytes, built.listBytes, params, layout);
  }

  async keepPublishedTree(
    sha256: string,
    indexBytes: Uint8Array,
    listBytes: Uint8Array,
    params: ChunkerParams,
    layout: TreeLayout,
  ): Promise<void> {
    const dir = join(this.options.cacheDir, chunkLayoutKey(params, layout));
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(join(dir, sha256), Buffer.concat([indexBytes, listBytes]), 0o600);
  }

  async readBlob(sha256: string, offset: number, into: Uint8Array): Promise<Uint8Array> {
    // One open per blob and assembly, not per 1 MiB copied (docs/UPDATER.md §10.2).
    let handle = this.readers.get(sha256);
    if (handle === undefined) {
      if (this.readers.size >= MAX_OPEN_READERS) await this.closeReads();
      handle = open(join(this.options.blobDir, sha256), constants.O_RDONLY | constants.O_NOFOLLOW);
      this.readers.set(sha256, handle);
      handle.catch(() => this.readers.delete(sha256));
    }
    const { bytesRead } = await (await handle).read(into, 0, into.length, offset);
    return into.subarray(0, bytesRead);
  }

  async closeReads(): Promise<void> {
    const open = [...this.readers.values()];
    this.readers.clear();
    for (const handle of open) await (await handle.catch(() => undefined))?.close();
  }

  openChunkedPartial(
    artifact: { sha256: string; size: number },
    planId: string,
  ): Promise<ChunkedPartial> {
    return openChunkedPartial({
      partialDir: this.options.partialDir,
      blobDir: this.options.blobDir,
      sha256: artifact.sha256,
      size: artifact.size,
      planId,
      ...(this.options.onRecorded === undefined ? {} : { onRecorded: this.options.onRecorded }),
      ...(this.options.onPromoted === undefined ? {} : { onPromoted: this.options.onPromoted }),
    });
  }

  /** A cached tree, verified like a fetched one; undefined (and removed) when unusable. */
  private async loadTree(
    dir: string,
    sha256: string,
    size: number,
  ): Promise<ChunkTree | undefined> {
    const path = join(dir, sha256);
    const bytes = await readFile(path).catch(() => undefined);
    if (bytes === undefined || bytes.length < CHUNK_INDEX_HEADER_BYTES) return undefined;
    try {
      const indexLength = indexBlobLength(bytes);
      const indexBytes = bytes.subarray(0, indexLength);
      const signed = { sha256: sha256Of(indexBytes), size: indexBytes.length };
      const index: ChunkIndex = parseChunkIndex(indexBytes, signed, { sha256, size });
      const list = bytes.subarray(indexLength);
      if (index.listSha256 !== undefined && sha256Of(list) !== index.listSha256) return undefined;
      return { index, levels: readWholeTree(index, list) };
    } catch {
      await rm(path, { force: true });
      return undefined;
    }
  }

  /**
   * The tree under this layout, regrouped from the cached tree of a layout with the same chunker
   * and another index format or section rule (the chunks are the same, only the sections and
   * so the node digests differ, docs/PROTOCOL.md §2.6): after the publisher's layout changes
   * (format 1 to 2, or a new fan-out), the held blobs are not read again to learn their chunks,
   * and equal chunk lists give equal nodes.
   */
  private async regroupTree(
    key: string,
    sha256: string,
    size: number,
    params: ChunkerParams,
    layout: TreeLayout,
  ): Promise<ChunkTree | undefined> {
    const chunker = chunkerKey(params);
    const others = await readdir(this.options.cacheDir).catch(() => []);
    for (const other of others) {
      if (other === key || !other.startsWith(chunker)) continue;
      const tree = await this.loadTree(join(this.options.cacheDir, other), sha256, size);
      const level0 = tree?.levels[0];
      if (level0 === undefined) continue;
      const built = buildChunkTree(level0, size, sha256, params, layout);
      await this.keepPublishedTree(sha256, built.indexBytes, built.listBytes, params, layout);
      return built;
    }
    return undefined;
  }

  private async computeTree(
    dir: string,
    sha256: string,
    params: ChunkerParams,
    layout: TreeLayout,
  ): Promise<ChunkTree> {
    const builder = new ChunkIndexBuilder(params, layout);
    // One reused buffer: reading a large blob allocates nothing per read (peak RSS).
    const buffer = Buffer.alloc(1024 * 1024);
    const handle = await open(
      join(this.options.blobDir, sha256),
      constants.O_RDONLY | constants.O_NOFOLLOW,
    );
    try {
      for (let at = 0; ;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, at);
        if (bytesRead === 0) break;
        builder.update(buffer.subarray(0, bytesRead));
        at += bytesRead;
        this.options.onRead?.(bytesRead);
      }
    } finally {
      await handle.close();
    }
    const built = builder.finish();
    if (built.index.artifactSha256 !== sha256) {
      // The blob no longer holds its content: never describe it by what it holds now.
      throw new Error(`blob ${sha256} does not match its name`);
    }
    await writeFileAtomic(
      join(dir, sha256),
      Buffer.concat([built.indexBytes, built.listBytes]),
      0o600,
    );
    return built;
  }

  /** Drops cached trees of blobs no longer held, and caches of other layouts. */
  private async prune(key: string, dir: string, held: ReadonlySet<string>): Promise<void> {
    for (const name of await readdir(dir)) {
      if (!held.has(name)) await rm(join(dir, name), { force: true });
    }
    for (const other of await readdir(this.options.cacheDir)) {
      if (other !== key)
        await rm(join(this.options.cacheDir, other), { recursive: true, force: true });
    }
  }
}

function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
