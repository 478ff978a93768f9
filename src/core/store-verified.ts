/**
 * Bytes the core has already checked against their signed SHA-256 (a pack member: its range
 * fetch hashes it as its last byte arrives, docs/UPDATER.md §11) go into the store without a
 * second hash where the store offers that (`LocalStore.storeVerified`), else through a partial
 * blob as a whole-file download writes them (whose `complete` hashes them again). Only code that
 * hashed the very bytes it hands over may call this: the store takes them as verified.
 */
import type { LocalStore, PartialBlob } from './ports.js';

export function storeVerified(
  store: LocalStore,
  sha256: string,
  size: number,
  bytes: Uint8Array,
): Promise<void> {
  // Handed straight on: no promise of its own per member.
  if (store.storeVerified !== undefined) return store.storeVerified(sha256, size, bytes);
  return throughPartial(store, sha256, size, bytes);
}

async function throughPartial(
  store: LocalStore,
  sha256: string,
  size: number,
  bytes: Uint8Array,
): Promise<void> {
  await fillPartial(await store.openPartial(sha256, size), bytes);
}

/**
 * Writes `bytes` as the whole of the open `partial` and completes it (its `complete` hashes
 * them); a partial that failed is closed. Bytes a killed run left in it are dropped: the blob
 * is here whole.
 */
export async function fillPartial(partial: PartialBlob, bytes: Uint8Array): Promise<void> {
  try {
    if (partial.offset > 0) await partial.reset();
    await partial.write(bytes);
    await partial.complete();
  } catch (error) {
    await partial.close();
    throw error;
  }
}
