/**
 * Content-addressed blobs on disk: `<root>/<first two hex>/<sha256>`. A blob is written to a
 * temporary file while it is hashed, fsynced, then renamed to its digest, so a digest on disk
 * always names exactly its bytes. Memory stays flat: files are streamed, never buffered.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { ChunkIndexBuilder, SHA256_HEX } from '#protocol';
import { commitTemp, tempPathFor } from '#shared/atomic-file.js';

export interface BlobInfo {
  readonly sha256: string;
  readonly size: number;
  /** The chunk index stored beside it (docs/PROTOCOL.md §2.6), for blobs that got one. */
  readonly chunkIndex?: ChunkIndexBlobs;
}

/** The index blob and, for a tree of more than one level, the chunk list blob. */
export interface ChunkIndexBlobs {
  readonly sha256: string;
  readonly size: number;
  readonly listSha256?: string;
}

export interface PutOptions {
  /** Build and store a chunk index when the blob has at least this many bytes. */
  readonly chunkIndexMinBytes?: number;
  /** Told every digest stored, the chunk index's and list's too, as soon as it is in place. */
  readonly onStored?: (sha256: string) => void;
}

export class BlobStore {
  constructor(readonly root: string) {}

  /** Where the blob with this digest lives (the digest must be 64 lowercase hex). */
  pathOf(sha256: string): string {
    if (!SHA256_HEX.test(sha256)) throw new RangeError('not a sha256 hex digest');
    return join(this.root, sha256.slice(0, 2), sha256);
  }

  /** Size of a stored blob, or undefined when it is absent. */
  async sizeOf(sha256: string): Promise<number | undefined> {
    try {
      const s = await stat(this.pathOf(sha256));
      return s.isFile() ? s.size : undefined;
    } catch {
      return undefined;
    }
  }

  /** Stores bytes held in memory (dev API, in-process publish). */
  async putBytes(bytes: Uint8Array, options: PutOptions = {}): Promise<BlobInfo> {
    return this.#put(bytes.length, options, async (write) => {
      await write(bytes);
    });
  }

  /** Stores a file by streaming it (CLI publish); memory use does not depend on its size. */
  async putFile(path: string, options: PutOptions = {}): Promise<BlobInfo> {
    // A missing file fails in the stream below, after the usual temporary-file handling.
    const expected = await stat(path).then(
      (s) => s.size,
      () => 0,
    );
    return this.#put(expected, options, async (write) => {
      await pipeline(createReadStream(path), async (source: AsyncIterable<Buffer>) => {
        for await (const chunk of source) await write(chunk);
      });
    });
  }

  /**
   * Stores the concatenation of files, streamed one after another (a pack built from the
   * blobs of its members, docs/PROTOCOL.md §2.8): memory does not depend on the total.
   */
  async putConcat(paths: readonly string[], options: PutOptions = {}): Promise<BlobInfo> {
    return this.#put(0, options, async (write) => {
      for (const path of paths) {
        await pipeline(createReadStream(path), async (source: AsyncIterable<Buffer>) => {
          for await (const chunk of source) await write(chunk);
        });
      }
    });
  }

  async #put(
    expectedSize: number,
    options: PutOptions,
    produce: (write: (chunk: Uint8Array) => Promise<void>) => Promise<void>,
  ): Promise<BlobInfo> {
    await mkdir(this.root, { recursive: true });
    const temp = tempPathFor(join(this.root, 'incoming'));
    // One pass (docs/PROTOCOL.md §2.6): a large blob's bytes feed the chunk index builder,
    // which hashes the whole file too; a small one's feed the plain hash.
    const minBytes = options.chunkIndexMinBytes;
    const builder =
      minBytes !== undefined && expectedSize >= minBytes ? new ChunkIndexBuilder() : undefined;
    const hash = createHash('sha256');
    let size = 0;
    const handle = await open(temp, 'wx', 0o644);
    try {
      await produce(async (chunk) => {
        if (builder === undefined) hash.update(chunk);
        else builder.update(chunk);
        size += chunk.length;
        await handle.write(chunk);
      });
      await handle.sync();
    } catch (error) {
      await handle.close();
      await rm(temp, { force: true });
      throw error;
    }
    await handle.close();
    const built = builder !== undefined && size > 0 ? builder.finish() : undefined;
    const sha256 = built?.index.artifactSha256 ?? hash.digest('hex');
    const target = this.pathOf(sha256);
    await mkdir(join(this.root, sha256.slice(0, 2)), { recursive: true });
    // Same digest, same bytes: renaming over an existing blob is harmless.
    await commitTemp(temp, target);
    options.onStored?.(sha256);
    if (built === undefined || size < (minBytes ?? 0)) return { sha256, size };
    // The index and list are blobs like any other, served by the same route (§2.4).
    const stored = options.onStored === undefined ? {} : { onStored: options.onStored };
    const index = await this.putBytes(built.indexBytes, stored);
    if (built.listBytes.length === 0) {
      return { sha256, size, chunkIndex: { sha256: index.sha256, size: index.size } };
    }
    const list = await this.putBytes(built.listBytes, stored);
    return {
      sha256,
      size,
      chunkIndex: { sha256: index.sha256, size: index.size, listSha256: list.sha256 },
    };
  }

  /** Removes every blob (dev reset). */
  async clear(): Promise<void> {
    let entries: string[];
    try {
      entries = await readdir(this.root);
    } catch {
      return;
    }
    await Promise.all(entries.map((e) => rm(join(this.root, e), { recursive: true, force: true })));
  }
}
