/**
 * The fixed header of a chunk index blob (docs/PROTOCOL.md §2.6): read field by field, each
 * bound checked as it is read, the named artifact compared with the signed one.
 */
import { ChunkIndexError, malformed } from './chunk-index-error.js';
import { headerBytes } from './chunk-index-wire.js';
import {
  CHUNK_INDEX_HEADER_BYTES,
  CHUNK_INDEX_MAGIC,
  CHUNKER_FASTCDC_GEAR32,
  format1Layout,
  MAX_LEVELS,
  MAX_ROOT_ENTRIES,
  readU64,
  treeLayoutProblem,
  type TreeLayout,
} from './chunk-index.js';
import type { ChunkIndexFormat } from './chunk-tree-layout.js';
import { chunkerParamsProblem, type ChunkerParams } from './fastcdc.js';

export interface SignedDigest {
  readonly sha256: string;
  readonly size: number;
}

const hexOf = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** The fixed header of an index blob, its bounds checked (docs/PROTOCOL.md §2.6). */
export interface IndexHeader {
  readonly format: ChunkIndexFormat;
  /** Where the root section starts. */
  readonly headerBytes: number;
  readonly layout: TreeLayout;
  readonly levels: number;
  readonly params: ChunkerParams;
  readonly artifactSize: number;
  readonly artifactSha256: string;
  readonly listSize: number;
  readonly listDigest: Uint8Array;
  readonly rootCount: number;
}

/** Reads and checks the header, in the order the refusals are tested; `artifact` is signed. */
export function readIndexHeader(bytes: Uint8Array, artifact: SignedDigest): IndexHeader {
  if (bytes.length < CHUNK_INDEX_HEADER_BYTES) malformed('chunk index is shorter than its header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (new TextDecoder().decode(bytes.subarray(0, 4)) !== CHUNK_INDEX_MAGIC) {
    malformed('chunk index magic is wrong');
  }
  const format = view.getUint8(4);
  if (format !== 1 && format !== 2) malformed('chunk index format is unknown');
  if (view.getUint8(5) !== CHUNKER_FASTCDC_GEAR32) malformed('chunker is unknown');
  const header = headerBytes(format);
  if (bytes.length < header) malformed('chunk index is shorter than its header');
  const fanoutBits = view.getUint8(6);
  const levels = view.getUint8(7);
  const layout: TreeLayout =
    format === 1
      ? format1Layout(fanoutBits)
      : { format, fanoutBits, sectionMin: view.getUint8(104), sectionMax: view.getUint8(105) };
  const layoutProblem = treeLayoutProblem(layout);
  if (layoutProblem !== undefined) malformed(layoutProblem);
  if (levels < 1 || levels > MAX_LEVELS) malformed('level count is out of range');
  const params: ChunkerParams = {
    minSize: view.getUint32(8),
    avgSize: view.getUint32(12),
    maxSize: view.getUint32(16),
  };
  const problem = chunkerParamsProblem(params);
  if (problem !== undefined) malformed(problem);
  const artifactSize = readU64(view, 20);
  const listSize = readU64(view, 60);
  if (artifactSize === undefined || listSize === undefined) malformed('a size is too large');
  const artifactSha256 = hexOf(bytes.subarray(28, 60));
  if (artifactSize !== artifact.size || artifactSha256 !== artifact.sha256) {
    throw new ChunkIndexError('CHUNK_INDEX_WRONG_ARTIFACT', 'chunk index names another artifact');
  }
  if (artifactSize === 0) malformed('an empty artifact has no chunk index');
  const listDigest = bytes.subarray(68, 100);
  const rootCount = view.getUint32(100);
  if (rootCount < 1 || rootCount > MAX_ROOT_ENTRIES) malformed('root entry count is out of range');
  return {
    format,
    headerBytes: header,
    layout,
    levels,
    params,
    artifactSize,
    artifactSha256,
    listSize,
    listDigest,
    rootCount,
  };
}
