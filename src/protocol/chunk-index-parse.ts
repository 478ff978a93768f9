/**
 * Strict parsers of the chunk index blob and of chunk list sections (docs/PROTOCOL.md §2.6).
 * Order, as for the manifest: the bytes are first checked against the digest that signs them
 * (the manifest entry for the index, the parent node for a section), then parsed, then every
 * bound and sum is checked. Anything the publisher would not have produced is refused.
 * Formats 1 and 2 are both read (a registry may still serve format 1; chunk-index-wire.ts).
 */
import { createHash } from 'node:crypto';
import { ChunkIndexError, malformed } from './chunk-index-error.js';
import {
  decodeSectionWire,
  maxWireEntryBytes,
  minWireEntryBytes,
  WireReader,
} from './chunk-index-wire.js';
import {
  closesSection,
  entryBytes,
  MAX_ROOT_ENTRIES,
  entryHash,
  entrySpan,
  nodeAt,
  type ChunkIndex,
  type NodeEntry,
  type Section,
  type TreeLayout,
} from './chunk-index.js';
import { readIndexHeader, type SignedDigest } from './chunk-index-header.js';

export type { SignedDigest } from './chunk-index-header.js';

const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const hexOf = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/**
 * Parses an index blob that must hash to `signed` (the manifest's `chunk_index`) and describe
 * `artifact` (the same entry's size and SHA-256).
 */
export function parseChunkIndex(
  bytes: Uint8Array,
  signed: SignedDigest,
  artifact: SignedDigest,
): ChunkIndex {
  if (bytes.length !== signed.size || sha256Hex(bytes) !== signed.sha256) {
    throw new ChunkIndexError(
      'CHUNK_INDEX_MISMATCH',
      'chunk index does not match its signed digest',
    );
  }
  const head = readIndexHeader(bytes, artifact);
  const { layout, levels, artifactSize, listSize, artifactSha256, listDigest } = head;
  const rootLevel = levels - 1;
  const index = { params: head.params, ...layout, levels, artifactSize, listSize };
  const reader = new WireReader(bytes.subarray(head.headerBytes));
  const root = decodeSectionWire(reader, rootLevel, head.rootCount, layout);
  if (!reader.done) malformed('chunk index length does not match its root');
  checkSums(root, { span: artifactSize, subtreeBytes: listSize, endsArtifact: true }, index);
  if (rootLevel > 0 && head.format === 1) checkFormatOneHeight(root, rootLevel);
  if (rootLevel === 0) {
    if (listSize !== 0 || listDigest.some((b) => b !== 0)) malformed('a chunk list without nodes');
    return { ...index, artifactSha256, listSha256: undefined, root };
  }
  return { ...index, artifactSha256, listSha256: hexOf(listDigest), root };
}

/**
 * Canonical: the tree stops growing once a level fits in the root, never earlier (format 2
 * names no child counts: readWholeTree checks it there, once the level below is known).
 */
function checkFormatOneHeight(root: Section, rootLevel: number): void {
  let below = 0;
  for (let i = 0; i < root.count; i++)
    below += nodeAt(root, i).sectionBytes / entryBytes(rootLevel - 1);
  if (below <= MAX_ROOT_ENTRIES) malformed('the tree has a level more than it needs');
}

/** Where a node sits: what its section must add up to. */
export interface SectionContext {
  readonly span: number;
  /** Bytes of the subtree's chunk list below its own section (the list size for the root). */
  readonly subtreeBytes: number;
  /** True when the node covers the artifact's last byte (its section may end unclosed). */
  readonly endsArtifact: boolean;
}

/**
 * Parses the section of `parent` (a node of level `parentLevel`) fetched from the chunk list.
 * `endsArtifact`: the parent covers the artifact's last byte.
 */
export function parseSection(
  bytes: Uint8Array,
  parent: NodeEntry,
  parentLevel: number,
  endsArtifact: boolean,
  index: Pick<ChunkIndex, 'params' | 'levels'> & TreeLayout,
): Section {
  if (parentLevel < 1 || parentLevel >= index.levels) malformed('section level is out of range');
  const level = parentLevel - 1;
  if (bytes.length !== parent.sectionBytes || hexOf(sha256(bytes)) !== hexOf(parent.sha256)) {
    throw new ChunkIndexError('CHUNK_INDEX_MISMATCH', 'chunk list section does not match its node');
  }
  const section = decodeSectionWire(new WireReader(bytes), level, undefined, index);
  if (section.count < 1 || section.count > index.sectionMax) {
    malformed('a section entry count is out of range');
  }
  const own = bytes.length;
  checkSums(
    section,
    { span: parent.span, subtreeBytes: parent.subtreeBytes - own, endsArtifact },
    index,
  );
  checkGrouping(section, endsArtifact, index);
  return section;
}

function sha256(bytes: Uint8Array): Uint8Array {
  return createHash('sha256').update(bytes).digest();
}

/** Spans add up to the parent's, chunk and node bounds hold, subtrees fill the list exactly. */
function checkSums(
  section: Section,
  context: SectionContext,
  index: Pick<ChunkIndex, 'params'> & TreeLayout,
): void {
  let span = 0;
  let subtree = 0;
  const last = section.count - 1;
  if (section.level === 0) {
    const { minSize, maxSize } = index.params;
    for (let i = 0; i < section.count; i++) {
      const length = entrySpan(section, i);
      const finalChunk = context.endsArtifact && i === last;
      if (length > maxSize || length < (finalChunk ? 1 : minSize)) {
        malformed('a chunk length is out of bounds');
      }
      span += length;
    }
  } else {
    const below = section.level - 1;
    const fewest = minWireEntryBytes(below, index.format);
    const most = index.sectionMax * maxWireEntryBytes(below, index.format);
    for (let i = 0; i < section.count; i++) {
      const node = nodeAt(section, i);
      if (!Number.isSafeInteger(node.span) || !Number.isSafeInteger(node.subtreeBytes)) {
        malformed('a node size is too large');
      }
      const own = node.sectionBytes;
      if (own < fewest || own > most) malformed('a node section length is out of range');
      if (node.span < own / maxWireEntryBytes(below, index.format) || node.subtreeBytes < own) {
        malformed('a node is too small');
      }
      if (section.level === 1 && node.subtreeBytes !== own) malformed('a leaf node has a subtree');
      span += node.span;
      subtree += node.subtreeBytes;
    }
  }
  if (span !== context.span) malformed('spans do not add up to the parent span');
  if (subtree !== context.subtreeBytes) malformed('subtrees do not add up to the chunk list');
}

/** Sections end where the grouping rule says (closesSection), so equal content groups equally. */
function checkGrouping(section: Section, endsArtifact: boolean, layout: TreeLayout): void {
  const last = section.count - 1;
  for (let i = 0; i < section.count; i++) {
    const closes = closesSection(entryHash(section, i), i + 1, layout);
    if (i < last && closes) malformed('a section continues past its closing entry');
    if (i === last && !closes && !endsArtifact)
      malformed('a section ends before its closing entry');
  }
}

/** A growable byte buffer (one level's entries, appended section by section). */
class Bytes {
  private buffer = new Uint8Array(4096);
  length = 0;
  append(bytes: Uint8Array): void {
    if (this.length + bytes.length > this.buffer.length) {
      const grown = new Uint8Array(Math.max(this.buffer.length * 2, this.length + bytes.length));
      grown.set(this.buffer.subarray(0, this.length));
      this.buffer = grown;
    }
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
  }
  view(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }
}

/**
 * Every level of a tree, each as one section in artifact order, from its index and whole
 * chunk list (a client's cache of the trees of the blobs it holds): each section is parsed
 * and verified like a fetched one, and no object is made per entry.
 */
export function readWholeTree(index: ChunkIndex, list: Uint8Array): Section[] {
  if (list.length !== index.listSize) malformed('chunk list length does not match the index');
  const levels = Array.from({ length: index.levels }, () => new Bytes());
  levels[index.levels - 1]?.append(index.root.bytes);
  const visit = (section: Section, subtreesAt: number, artifactAt: number): void => {
    if (section.level === 0) return;
    let listAt = subtreesAt;
    let at = artifactAt;
    for (let i = 0; i < section.count; i++) {
      const node = nodeAt(section, i);
      const own = node.sectionBytes;
      const bytes = list.subarray(listAt, listAt + own);
      const ends = at + node.span === index.artifactSize;
      const child = parseSection(bytes, node, section.level, ends, index);
      levels[child.level]?.append(child.bytes);
      visit(child, listAt + own, at);
      listAt += node.subtreeBytes;
      at += node.span;
    }
  };
  visit(index.root, 0, 0);
  const tree = levels.map((level, l) => ({
    level: l,
    count: level.length / entryBytes(l),
    bytes: level.view(),
  }));
  // Canonical: the tree stops growing once a level fits in the root, never earlier.
  const belowRoot = tree[index.levels - 2];
  if (belowRoot !== undefined && belowRoot.count <= MAX_ROOT_ENTRIES) {
    malformed('the tree has a level more than it needs');
  }
  return tree;
}
