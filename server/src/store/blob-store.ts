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
import { SHA256_HEX } from '../../../src/protocol/index.js';
import { commitTemp, tempPathFor } from '../../../src/shared/atomic-file.js';

export interface BlobInfo {
  readonly sha256: string;
  readonly size: number;
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
  async putBytes(bytes: Uint8Array): Promise<BlobInfo> {
    return this.#put(async (write) => {
      await write(bytes);
    });
  }

  /** Stores a file by streaming it (CLI publish); memory use does not depend on its size. */
  async putFile(path: string): Promise<BlobInfo> {
    return this.#put(async (write) => {
      await pipeline(createReadStream(path), async (source: AsyncIterable<Buffer>) => {
        for await (const chunk of source) await write(chunk);
      });
    });
  }

  async #put(produce: (write: (chunk: Uint8Array) => Promise<void>) => Promise<void>) {
    await mkdir(this.root, { recursive: true });
    const temp = tempPathFor(join(this.root, 'incoming'));
    const hash = createHash('sha256');
    let size = 0;
    const handle = await open(temp, 'wx', 0o644);
    try {
      await produce(async (chunk) => {
        hash.update(chunk);
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
    const sha256 = hash.digest('hex');
    const target = this.pathOf(sha256);
    await mkdir(join(this.root, sha256.slice(0, 2)), { recursive: true });
    // Same digest, same bytes: renaming over an existing blob is harmless.
    await commitTemp(temp, target);
    return { sha256, size };
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
