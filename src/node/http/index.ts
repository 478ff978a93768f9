/** The http group's only door: what the rest of the updater uses of it. */
export { createFetchFetcher } from './fetch-fetcher.js';
export type { FetchLike, SessionFetch } from './fetch-fetcher.js';
export { createHttpFetcher } from './http-fetcher.js';
export type { HttpFetcher } from './http-fetcher.js';
export { exposeMinorGc } from './read-buffer-gc.js';
export type { EarlySocket } from './warm-connections.js';
