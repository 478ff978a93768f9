/**
 * Builds an artifact's chunk tree in the same pass that hashes it (docs/PROTOCOL.md §2.6):
 * `update()` takes the bytes as they are read, in any split, and feeds the whole-file SHA-256,
 * the FastCDC cutter and the current chunk's SHA-256; `finish()` groups the chunks into
 * sections level by level and serialises the index and chunk list blobs in the layout's format
 * (chunk-index-wire.ts). Memory: 36 bytes per chunk plus the serialised list, twice (about
 * 0.2 % of the artifact each at the default chunk size).
 *
 * The publisher builds the blobs it serves; the updater builds the same tree over blobs it
 * already holds, to learn which chunks and subtrees it can reuse.
 */
import { createHash, type Hash } from 'node:crypto';
import { encodeChunkIndex, encodeSectionWire } from './chunk-index-wire.js';
import {
  CHUNK_ENTRY_BYTES,
  closesSection,
  DEFAULT_CHUNKER_PARAMS,
  DEFAULT_TREE_LAYOUT,
  entrySpan,
  entryHash,
  MAX_ROOT_ENTRIES,
  nodeAt,
  NODE_ENTRY_BYTES,
  sliceSection,
  treeLayoutProblem,
  writeNodeEntry,
  type ChunkIndex,
  type Section,
  type TreeLayout,
} from './chunk-index.js';
import { FastCdc, type ChunkerParams } from './fastcdc.js';

/** Every level of a built tree: `levels[l]` is all of level l's entries, in artifact order. */
export interface ChunkTree {
  readonly index: ChunkIndex;
  readonly levels: readonly Section[];
}

export interface BuiltChunkIndex extends ChunkTree {
  /** The index blob (header and root). */
  readonly indexBytes: Uint8Array;
  readonly indexSha256: string;
  /** The chunk list blob (every section below the root, pre-order); empty for one level. */
  readonly listBytes: Uint8Array;
}

export class ChunkIndexBuilder {
  private readonly cutter: FastCdc;
  private readonly whole = createHash('sha256');
  private current: Hash = createHash('sha256');
  private readonly cuts: number[] = [];
  /** Level 0 as wire bytes (36 per chunk), grown by doubling. */
  private chunks = new Uint8Array(36 * 1024);
  private count = 0;
  private pendingBytes = 0;
  private size = 0;

  constructor(
    private readonly params: ChunkerParams = DEFAULT_CHUNKER_PARAMS,
    private readonly layout: TreeLayout = DEFAULT_TREE_LAYOUT,
  ) {
    const problem = treeLayoutProblem(layout);
    if (problem !== undefined) throw new RangeError(problem);
    this.cutter = new FastCdc(params);
  }

  update(bytes: Uint8Array): void {
    this.whole.update(bytes);
    this.size += bytes.length;
    this.cuts.length = 0;
    this.cutter.push(bytes, this.cuts);
    let at = 0;
    for (const cut of this.cuts) {
      // The first cut may close a chunk begun in earlier buffers: only its tail is here.
      const take = cut - this.pendingBytes;
      this.current.update(bytes.subarray(at, at + take));
      at += take;
      this.closeChunk(cut);
    }
    if (at < bytes.length) {
      this.current.update(bytes.subarray(at));
      this.pendingBytes += bytes.length - at;
    }
  }

  private closeChunk(length: number): void {
    const at = this.count * CHUNK_ENTRY_BYTES;
    if (at + CHUNK_ENTRY_BYTES > this.chunks.length) {
      const grown = new Uint8Array(this.chunks.length * 2);
      grown.set(this.chunks);
      this.chunks = grown;
    }
    new DataView(this.chunks.buffer).setUint32(at, length);
    this.chunks.set(this.current.digest(), at + 4);
    this.count++;
    this.current = createHash('sha256');
    this.pendingBytes = 0;
  }

  /** Ends the input. An empty artifact has no chunk index (RangeError). */
  finish(): BuiltChunkIndex {
    const tail = this.cutter.finish();
    if (tail > 0) this.closeChunk(tail);
    if (this.count === 0) throw new RangeError('an empty artifact has no chunk index');
    const level0: Section = {
      level: 0,
      count: this.count,
      bytes: this.chunks.subarray(0, this.count * CHUNK_ENTRY_BYTES),
    };
    const artifactSha256 = this.whole.digest('hex');
    return buildChunkTree(level0, this.size, artifactSha256, this.params, this.layout);
  }
}

/**
 * The level above `below`; for each of its nodes the index of its first child (and one past
 * the last node, the level's count), and the wire bytes of its sections, end to end.
 */
interface Grouped {
  readonly level: Section;
  readonly firstChild: Uint32Array;
  readonly wire: Uint8Array;
  /** wireAt[j]: where node j's section starts in `wire` (wireAt[count]: its length). */
  readonly wireAt: Float64Array;
}

function groupLevel(below: Section, layout: TreeLayout): Grouped {
  const out: Uint8Array[] = [];
  const firsts: number[] = [];
  const wires: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i < below.count; i++) {
    const last = i === below.count - 1;
    if (!last && !closesSection(entryHash(below, i), i - start + 1, layout)) continue;
    const wire = encodeSectionWire(sliceSection(below, start, i - start + 1), layout.format);
    let span = 0;
    let subtreeBytes = wire.length;
    for (let k = start; k <= i; k++) {
      span += entrySpan(below, k);
      if (below.level > 0) subtreeBytes += nodeAt(below, k).subtreeBytes;
    }
    const entry = new Uint8Array(NODE_ENTRY_BYTES);
    const sha256 = createHash('sha256').update(wire).digest();
    writeNodeEntry(entry, 0, { span, subtreeBytes, sectionBytes: wire.length, sha256 });
    out.push(entry);
    firsts.push(start);
    wires.push(wire);
    start = i + 1;
  }
  firsts.push(below.count);
  const bytes = new Uint8Array(out.length * NODE_ENTRY_BYTES);
  out.forEach((entry, j) => bytes.set(entry, j * NODE_ENTRY_BYTES));
  const wireAt = new Float64Array(wires.length + 1);
  wires.forEach((w, j) => (wireAt[j + 1] = (wireAt[j] as number) + w.length));
  const wire = new Uint8Array(wireAt[wires.length] as number);
  wires.forEach((w, j) => wire.set(w, wireAt[j]));
  return {
    level: { level: below.level + 1, count: out.length, bytes },
    firstChild: Uint32Array.from(firsts),
    wire,
    wireAt,
  };
}

/**
 * The tree over chunks already cut and hashed, given as level 0 (the updater knows every chunk
 * of an artifact it has just assembled, so it builds the same tree without reading it again).
 */
export function buildChunkTree(
  level0: Section,
  artifactSize: number,
  artifactSha256: string,
  params: ChunkerParams,
  layout: TreeLayout,
): BuiltChunkIndex {
  const levels: Section[] = [level0];
  const grouped: (Grouped | undefined)[] = [undefined];
  while ((levels[levels.length - 1] as Section).count > MAX_ROOT_ENTRIES) {
    const next = groupLevel(levels[levels.length - 1] as Section, layout);
    levels.push(next.level);
    grouped.push(next);
  }
  const root = levels[levels.length - 1] as Section;
  const listBytes = writeList(levels, grouped);
  const index: ChunkIndex = {
    params,
    format: layout.format,
    fanoutBits: layout.fanoutBits,
    sectionMin: layout.sectionMin,
    sectionMax: layout.sectionMax,
    levels: levels.length,
    artifactSize,
    artifactSha256,
    listSize: listBytes.length,
    listSha256: root.level === 0 ? undefined : createHash('sha256').update(listBytes).digest('hex'),
    root,
  };
  const indexBytes = encodeChunkIndex(index);
  return {
    index,
    levels,
    indexBytes,
    indexSha256: createHash('sha256').update(indexBytes).digest('hex'),
    listBytes,
  };
}

/** Pre-order: each root node's section, then its children's subtrees, left to right. */
function writeList(levels: readonly Section[], grouped: readonly (Grouped | undefined)[]) {
  const top = levels.length - 1;
  const root = levels[top] as Section;
  if (root.level === 0) return new Uint8Array(0);
  let total = 0;
  for (let j = 0; j < root.count; j++) total += nodeAt(root, j).subtreeBytes;
  const out = new Uint8Array(total);
  let at = 0;
  const emit = (level: number, j: number): void => {
    const { firstChild, wire, wireAt } = grouped[level] as Grouped;
    const from = wireAt[j] as number;
    const to = wireAt[j + 1] as number;
    out.set(wire.subarray(from, to), at);
    at += to - from;
    if (level === 1) return;
    const first = firstChild[j] as number;
    const end = firstChild[j + 1] as number;
    for (let k = first; k < end; k++) emit(level - 1, k);
  };
  for (let j = 0; j < root.count; j++) emit(top, j);
  return out;
}
