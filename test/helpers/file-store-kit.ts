/** What the FileStore tests share: two small contents and a blob put through a partial. */
import type { FileStore } from '#node/store/file-store.js';
import { sha256Hex, text } from './fakes.js';

export const A = text('alpha');
export const B = text('bravo bravo');

/** Puts `content` into the store as a download would, settled. */
export async function putBlob(store: FileStore, content: Uint8Array): Promise<void> {
  const partial = await store.openPartial(sha256Hex(content), content.length);
  await partial.write(content);
  await partial.complete();
  // A small blob is promoted behind the downloads: in the store once settled.
  await store.settleBlobs();
}
