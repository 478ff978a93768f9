/**
 * The one pass in artifact order that finishes a chunked download (docs/UPDATER.md §9.1):
 * held chunks are copied into the partial in blocks of up to COPY_BYTES of one blob (one read,
 * one write, a few reused buffers); bytes already in the partial (fetched ranges, resumed
 * chunks) are read back; a chunk repeated inside the artifact is copied from its first place.
 * Everything passes through the whole-file SHA-256 in order, so the blob is never read again
 * to check its digest before promotion.
 *
 * Held chunks are not hashed one by one here: a held blob is trusted through its facts the
 * same way an installed blob is, and the whole SHA-256, checked before promotion, is what
 * keeps every unverified byte out of the blob store. Only when that check fails (a held blob
 * damaged on disk) are the held chunks re-hashed against the signed index and the bad ones
 * fetched (recheck.ts). docs/UPDATER.md §9.1 "Assemble" gives the argument.
 *
 * The pass is a small pipeline (copy-pipeline.ts): the read of the next block runs on the
 * thread pool while the main thread hashes the current one and its write is queued.
 */
import { createHash, type Hash } from 'node:crypto';
import { entrySpan, sliceSection, type Section } from '#protocol/chunk-index.js';
import type { ChunkOp } from './tree-diff.js';
import type { ChunkStore, ChunkedPartial } from './chunk-ports.js';
import { COPY_BYTES, CopyPipeline } from './copy-pipeline.js';
import { UpdateError } from '../errors.js';

type LocalOp = Extract<ChunkOp, { kind: 'local' }>;
export type SingleOp = Exclude<ChunkOp, LocalOp>;

export { COPY_BYTES } from './copy-pipeline.js';

export interface SweepPorts {
  readonly chunks: ChunkStore;
  readonly partial: ChunkedPartial;
  /** Writes chunks at `offset` (and counts them). */
  readonly put: (offset: number, bytes: Uint8Array, chunks: Section) => Promise<void>;
  /** Fetches one chunk that a held blob no longer holds intact, and puts it. */
  readonly refetch: (op: SingleOp) => Promise<void>;
  /** For messages. */
  readonly what: string;
}

export function sha256Equals(bytes: Uint8Array, expected: Uint8Array): boolean {
  return createHash('sha256').update(bytes).digest().equals(expected);
}

/** The level 0 entries of one fetched or repeated chunk. */
export function singleChunk(op: { readonly length: number; readonly sha256: Uint8Array }) {
  const bytes = new Uint8Array(36);
  new DataView(bytes.buffer).setUint32(0, op.length);
  bytes.set(op.sha256, 4);
  return { level: 0, count: 1, bytes };
}

/**
 * Runs the pass over `ops` (the artifact, tiled in order); `done`: chunks already in the
 * partial (resumed or fetched), artifact offset -> length. Resolves to the whole SHA-256 (hex)
 * of what was written, or to undefined when a held blob could not be read in full (its
 * chunks were not written: the caller re-checks the held chunks before promotion).
 */
export async function sweep(
  ports: SweepPorts,
  ops: readonly ChunkOp[],
  done: (offset: number, length: number) => boolean,
): Promise<string | undefined> {
  const pass = new SweepPass(ports);
  for (const op of ops) {
    if (op.kind === 'local') {
      const { chunks } = op.from;
      let at = 0;
      for (let i = 0; i < chunks.count; i++) {
        const length = entrySpan(chunks, i);
        if (done(op.offset + at, length)) await pass.back(op.offset + at, length);
        else await pass.hold(op, i, op.from.offset + at, op.offset + at, length);
        at += length;
      }
    } else if (op.kind === 'repeat' && !done(op.offset, op.length)) {
      await pass.repeat(op);
    } else {
      await pass.back(op.offset, op.length);
    }
  }
  return pass.end();
}

/**
 * The pass's gathering: consecutive held chunks become one copy block, consecutive bytes
 * already in the partial one read back, each handed on in artifact order.
 */
class SweepPass {
  private readonly ports: SweepPorts;
  private readonly whole = createHash('sha256');
  private readonly copier: CopyPipeline;
  // The block being gathered: consecutive held chunks, in one blob and in the artifact, across
  // ops (the plan cuts held runs at subtree boundaries, often a few hundred KiB). Its level 0
  // entries are kept as slices of the ops' sections: `parts`, then the open one.
  private open: { blob: string; from: number; offset: number; length: number } | undefined;
  private parts: Section[] = [];
  private partOp: LocalOp | undefined;
  private partFirst = 0;
  private partEnd = 0;
  // The bytes to read back being gathered.
  private backAt = 0;
  private backBytes = 0;

  constructor(ports: SweepPorts) {
    this.ports = ports;
    this.copier = new CopyPipeline(ports, this.whole);
  }

  /** Adds `length` bytes at `offset` that are already in the partial. */
  async back(offset: number, length: number): Promise<void> {
    await this.flushBlock();
    const { backAt, backBytes } = this;
    if (backBytes > 0 && (backAt + backBytes !== offset || backBytes + length > COPY_BYTES)) {
      await this.flushBack();
    }
    if (this.backBytes === 0) this.backAt = offset;
    this.backBytes += length;
  }

  /** Adds chunk `i` of a held run: `length` bytes at `from` in its blob, `offset` here. */
  async hold(op: LocalOp, i: number, from: number, offset: number, length: number): Promise<void> {
    const open = this.open;
    const follows =
      open !== undefined &&
      open.blob === op.from.blob &&
      open.from + open.length === from &&
      open.offset + open.length === offset &&
      open.length + length <= COPY_BYTES;
    if (!follows) {
      await this.flushBlock();
      // Bytes to read back come earlier in the artifact: hashed before this block.
      await this.flushBack();
    }
    this.open ??= { blob: op.from.blob, from, offset, length: 0 };
    this.open.length += length;
    if (this.partOp === op && this.partEnd === i) {
      this.partEnd++;
    } else {
      this.closePart();
      this.partOp = op;
      this.partFirst = i;
      this.partEnd = i + 1;
    }
  }

  /** Copies a repeated chunk from its first place in the partial, checked against its digest. */
  async repeat(op: Extract<ChunkOp, { kind: 'repeat' }>): Promise<void> {
    await this.flushBlock();
    await this.flushBack();
    await this.copier.drain();
    const bytes = await this.ports.partial.read(op.sourceOffset, op.length);
    if (!sha256Equals(bytes, op.sha256)) {
      throw new UpdateError('HASH_MISMATCH', `${this.ports.what}: a repeated chunk changed`);
    }
    await this.ports.put(op.offset, bytes, singleChunk(op));
    this.whole.update(bytes);
  }

  /** Hands on what is gathered, waits for every write; the digest, or undefined if not intact. */
  async end(): Promise<string | undefined> {
    await this.flushBlock();
    await this.flushBack();
    await this.copier.drain();
    await this.copier.settle();
    const digest = this.whole.digest('hex');
    return this.copier.intact ? digest : undefined;
  }

  private closePart(): void {
    if (this.partOp !== undefined) {
      this.parts.push(
        sliceSection(this.partOp.from.chunks, this.partFirst, this.partEnd - this.partFirst),
      );
    }
    this.partOp = undefined;
  }

  private async flushBlock(): Promise<void> {
    if (this.open === undefined) return;
    this.closePart();
    const block = { ...this.open, chunks: joinSections(this.parts) };
    this.open = undefined;
    this.parts = [];
    await this.copier.copy(block);
  }

  private async flushBack(): Promise<void> {
    if (this.backBytes === 0) return;
    await this.copier.drain();
    await readBack(this.ports, this.whole, this.backAt, this.backBytes);
    this.backBytes = 0;
  }
}

/** Level 0 sections one after the other, as one (no copy when there is one). */
function joinSections(parts: readonly Section[]): Section {
  if (parts.length === 1) return parts[0] as Section;
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.bytes.length, 0));
  let at = 0;
  for (const p of parts) {
    bytes.set(p.bytes, at);
    at += p.bytes.length;
  }
  return { level: 0, count: parts.reduce((n, p) => n + p.count, 0), bytes };
}

/** Reads `length` bytes of the partial at `offset` into the whole hash. */
async function readBack(ports: SweepPorts, whole: Hash, offset: number, length: number) {
  const bytes = await ports.partial.read(offset, length);
  if (bytes.length !== length) {
    throw new UpdateError('IO', `${ports.what}: the partial file is shorter than written`);
  }
  whole.update(bytes);
}
