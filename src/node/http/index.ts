/** The http group's only door: what the rest of the updater uses of it. */
export { createFetchFetcher } from './fetch-fetcher.js';
export type { FetchLike, SessionFetch } from './fetch-fetcher.js';
export { createUndiciFetcher } from './undici-fetcher.js';
export type { UndiciFetcher, UndiciFetcherOptions } from './undici-fetcher.js';
export { causes, reasonCode } from './network-error.js';
export { exposeMinorGc } from './read-buffer-gc.js';
