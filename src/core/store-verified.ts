/**
 * Bytes the core has already checked against their signed SHA-256 (a pack member: its range
 * fetch hashes it as its last byte arrives, docs/UPDATER.md §11) go into the store without a
 * second hash where the store offers that (`LocalStore.storeVerified`), else through a partial
 * blob as a whole-file download writes them (whose `complete` hashes them again). Only code that
 * hashed the very bytes it hands over may call this: the store takes them as verified.
 */
import type { LocalStore } from './ports.js';

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
  const partial = await store.openPartial(sha256, size);
  try {
    // Bytes a killed run left for it are dropped: the blob is here whole.
    if (partial.offset > 0) await partial.reset();
    await partial.write(bytes);
    await partial.complete();
  } catch (error) {
    await partial.close();
    throw error;
  }
}
