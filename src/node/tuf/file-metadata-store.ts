/**
 * The MetadataStore port over a directory: one `<role>.json` file per role, the role name
 * percent-encoded whole (so "../x" or "a/b" stays one file inside the directory), each write
 * atomic (temporary file in the same directory, fsync, rename: src/shared/atomic-file.ts).
 * Bytes are stored exactly as received (TUF spec §5: hashes of stored metadata must hold).
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { TufError } from '#protocol/tuf/index.js';
import { quoteSegment, type MetadataStore } from '#core/tuf/index.js';
import { writeFileAtomic } from '#shared/atomic-file.js';

export class FileMetadataStore implements MetadataStore {
  constructor(readonly dir: string) {}

  /** The file of `role`: `root.json`, `timestamp.json`, `..%2Fx.json`. */
  pathOf(role: string): string {
    return join(this.dir, `${quoteSegment(role)}.json`);
  }

  async read(role: string): Promise<Uint8Array | undefined> {
    try {
      return new Uint8Array(await readFile(this.pathOf(role)));
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') return undefined;
      throw storeFailed('read', role, error);
    }
  }

  async write(role: string, bytes: Uint8Array): Promise<void> {
    try {
      await writeFileAtomic(this.pathOf(role), bytes);
    } catch (error) {
      throw storeFailed('write', role, error);
    }
  }

  /** `retired-keys`: no role's file lacks the `.json` ending, so no role can be named so. */
  get retiredKeysPath(): string {
    return join(this.dir, 'retired-keys');
  }

  async readRetiredKeys(): Promise<Uint8Array | undefined> {
    try {
      return new Uint8Array(await readFile(this.retiredKeysPath));
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') return undefined;
      throw storeFailed('read', 'retired keys', error);
    }
  }

  async writeRetiredKeys(bytes: Uint8Array): Promise<void> {
    try {
      await writeFileAtomic(this.retiredKeysPath, bytes);
    } catch (error) {
      throw storeFailed('write', 'retired keys', error);
    }
  }

  async remove(role: string): Promise<void> {
    try {
      await rm(this.pathOf(role), { force: true });
    } catch (error) {
      throw storeFailed('remove', role, error);
    }
  }
}

function errnoOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function storeFailed(action: string, role: string, cause: unknown): TufError {
  return new TufError(
    'STORE_FAILED',
    `cannot ${action} ${role} metadata`,
    {
      role,
      errno: errnoOf(cause) ?? 'unknown',
    },
    { cause },
  );
}
