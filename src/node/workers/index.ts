/** The workers group's only door: what the rest of the updater uses of it. */
export { InThreadSink } from './append-sink.js';
export type { AppendSink } from './append-sink.js';
export { HashAppendWorker } from './hash-append.js';
