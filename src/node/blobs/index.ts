/** The blobs group's only door: what the rest of the updater uses of it. */
export {
  blobPath,
  factsHoldNow,
  keepBlobFacts,
  recordFactsNow,
  saveBlobFacts,
  trustBlob,
} from './blob-facts.js';
export { setArrivalHook, type ArrivalHook } from './arrival-hook.js';
export { BlobListing } from './blob-listing.js';
export { BlobSealer } from './blob-sealer.js';
export type { BlobSealerOptions } from './blob-sealer.js';
export { FileChunkStore } from './chunk-store.js';
export { factsBookOf, openFactsBook } from './facts-book.js';
export { BLOB_MTIME_S } from './intact-blob.js';
export { openPartialBlob } from './partial-open.js';
export { storeVerifiedBlob } from './verified-blob.js';
export type { PartialBlobOptions, PartialPaths } from './partial-types.js';
