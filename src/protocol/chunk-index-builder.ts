/**
 * Builds an artifact's chunk tree in the same pass that hashes it (docs/PROTOCOL.md §2.6):
 * `update()` takes the bytes as they are read, in any split, and feeds the whole-file SHA-256,
 * the FastCDC cutter and the current chunk's SHA-256; `finish()` groups the chunks into
 * sections level by level and serialises the index and chunk list blobs. Memory: 36 bytes per
 * chunk plus the serialised list (about 0.2 % of the artifact at the default chunk size).
 *
 * The publisher builds the blobs it serves; the updater builds the same tree over blobs it
 * already holds, to learn which chunks and subtrees it can reuse.
 */
import { createHash, type Hash } from 'node:crypto';
import {
  closesSection,
  DEFAULT_CHUNKER_PARAMS,
  DEFAULT_FANOUT_BITS,
  encodeChunkIndex,
  encodeSection,
  entryBytes,
  MAX_ROOT_ENTRIES,
  type ChunkEntry,
  type ChunkIndex,
  type NodeEntry,
  type Section,
} from './chunk-index.js';
import { FastCdc, type ChunkerParams } from './fastcdc.js';

/** Every level of a built tree; `levels[l]` lists level l's entries in artifact order. */
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
  private readonly chunks: ChunkEntry[] = [];
  private size = 0;

  constructor(
    private readonly params: ChunkerParams = DEFAULT_CHUNKER_PARAMS,
    private readonly fanoutBits: number = DEFAULT_FANOUT_BITS,
  ) {
    if (!Number.isInteger(fanoutBits) || fanoutBits < 1 || fanoutBits > 8) {
      throw new RangeError('fan-out bits must be 1 to 8');
    }
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
      const pending = this.pendingBytes;
      const take = cut - pending;
      this.current.update(bytes.subarray(at, at + take));
      at += take;
      this.closeChunk(cut);
    }
    if (at < bytes.length) {
      this.current.update(bytes.subarray(at));
      this.pendingBytes += bytes.length - at;
    }
  }

  private pendingBytes = 0;

  private closeChunk(length: number): void {
    this.chunks.push({ length, sha256: this.current.digest() });
    this.current = createHash('sha256');
    this.pendingBytes = 0;
  }

  /** Ends the input. An empty artifact has no chunk index (RangeError). */
  finish(): BuiltChunkIndex {
    const tail = this.cutter.finish();
    if (tail > 0) this.closeChunk(tail);
    if (this.chunks.length === 0) throw new RangeError('an empty artifact has no chunk index');
    const artifactSha256 = this.whole.digest('hex');
    return buildChunkTree(this.chunks, this.size, artifactSha256, this.params, this.fanoutBits);
  }
}

interface Grouped {
  readonly nodes: NodeEntry[];
  /** For each node, its section's bytes (kept to write the list without encoding twice). */
  readonly sections: Uint8Array[];
}

function groupLevel(below: Section, fanoutBits: number): Grouped {
  const nodes: NodeEntry[] = [];
  const sections: Uint8Array[] = [];
  const entries: readonly (ChunkEntry | NodeEntry)[] = below.entries;
  let start = 0;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as ChunkEntry | NodeEntry;
    if (i < entries.length - 1 && !closesSection(entry.sha256, i - start + 1, fanoutBits)) continue;
    const run = entries.slice(start, i + 1);
    const section =
      below.level === 0
        ? encodeSection({ level: 0, entries: run as ChunkEntry[] })
        : encodeSection({ level: below.level, entries: run as NodeEntry[] });
    let span = 0;
    let subtreeBytes = section.length;
    for (const e of run) {
      span += 'length' in e ? e.length : e.span;
      subtreeBytes += 'length' in e ? 0 : e.subtreeBytes;
    }
    nodes.push({
      span,
      subtreeBytes,
      childCount: run.length,
      sha256: createHash('sha256').update(section).digest(),
    });
    sections.push(section);
    start = i + 1;
  }
  return { nodes, sections };
}

/**
 * The tree over chunks already cut and hashed (the updater knows every chunk of an artifact it
 * has just assembled, so it builds the same tree without reading the bytes again).
 */
export function buildChunkTree(
  chunks: readonly ChunkEntry[],
  artifactSize: number,
  artifactSha256: string,
  params: ChunkerParams,
  fanoutBits: number,
): BuiltChunkIndex {
  const levels: Section[] = [{ level: 0, entries: chunks }];
  // sectionsAt[l][j]: the section of node j of level l (l >= 1).
  const sectionsAt: Uint8Array[][] = [[]];
  while ((levels[levels.length - 1] as Section).entries.length > MAX_ROOT_ENTRIES) {
    const below = levels[levels.length - 1] as Section;
    const { nodes, sections } = groupLevel(below, fanoutBits);
    levels.push({ level: below.level + 1, entries: nodes });
    sectionsAt.push(sections);
  }
  const root = levels[levels.length - 1] as Section;
  const listBytes = writeList(levels, sectionsAt);
  const index: ChunkIndex = {
    params,
    fanoutBits,
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
function writeList(levels: readonly Section[], sectionsAt: readonly Uint8Array[][]): Uint8Array {
  const top = levels.length - 1;
  const root = levels[top] as Section;
  if (root.level === 0) return new Uint8Array(0);
  let total = 0;
  for (const node of root.entries as readonly NodeEntry[]) total += node.subtreeBytes;
  const out = new Uint8Array(total);
  let at = 0;
  // firstChild[l][j]: index in level l-1 of node j's first child.
  const firstChild = levels.map((level) => {
    const starts: number[] = [];
    let next = 0;
    for (const entry of level.entries) {
      starts.push(next);
      next += 'childCount' in entry ? entry.childCount : 0;
    }
    return starts;
  });
  const emit = (level: number, j: number): void => {
    const section = (sectionsAt[level] as Uint8Array[])[j] as Uint8Array;
    out.set(section, at);
    at += section.length;
    if (level === 1) return;
    const first = (firstChild[level] as number[])[j] as number;
    const count = section.length / entryBytes(level - 1);
    for (let k = 0; k < count; k++) emit(level - 1, first + k);
  };
  for (let j = 0; j < root.entries.length; j++) emit(top, j);
  return out;
}
