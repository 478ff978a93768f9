/** The chunks group's only door: what the rest of the updater uses of it. */
export type { ChunkStore, ChunkedPartial } from './chunk-ports.js';
export { chunkedPuller, planPull } from './chunk-step.js';
export type { ChunkPorts, PullPlan } from './chunk-step.js';
export { buildLocalChunks } from './local-chunks.js';
export type { LocalChunks } from './local-chunks.js';
export { keepWholeTrees } from './tree-of-whole-blob.js';
export { coalesceRanges } from './coalesce-ranges.js';
export type { CoalesceRule, PlannedRange } from './coalesce-ranges.js';
export { fetchPieces } from './range-fetch.js';
export type { RangeFetchContext, SourceFailure, VerifiedPiece } from './range-fetch.js';
