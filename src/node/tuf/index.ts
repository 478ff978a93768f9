/**
 * The door of src/node/tuf: the Node adapters of the TUF client's ports, and the
 * tuf-conformance client CLI (scripts/tuf-conformance-client).
 */
export { FileMetadataStore } from './file-metadata-store.js';
export {
  HttpBytesFetcher,
  requestTarget,
  type HttpBytesFetcherOptions,
} from './http-bytes-fetcher.js';
export {
  parseConformanceArgs,
  runConformanceCli,
  type ConformanceArgs,
} from './conformance-cli.js';
export { checkGivenRoot, settleTrustedRoot, tufDirOf, type RootOutcome } from './trusted-root.js';
