/** The transfer group's only door: what the rest of the updater uses of it. */
export { DOT_SEGMENT } from './artifact-url.js';
export { checkContentCoding, isGzipCoding } from './content-coding.js';
export { parseEndpoint, requireEndpoint } from './endpoint.js';
export type { Endpoint } from './endpoint.js';
export { gcPacer } from './gc-pacer.js';
export type { GarbageCollector } from './gc-pacer.js';
export { errorForResponse } from './http-errors.js';
export { startGet } from './http-get.js';
export type { Exchange, HttpContext } from './http-get.js';
export { linkedAbort } from './linked-abort.js';
export { missingBlobs, pullBlobs } from './pull.js';
export type { BlobPuller, PullContext } from './pull.js';
export { withRetries } from './retry.js';
export { safeUrl } from './safe-url.js';
