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
 * The pass is a small pipeline: the read of the next block runs on the thread pool while the
 * main thread hashes the current one and its write is queued.
 */
import { createHash } from 'node:crypto';
import { entrySpan, sliceSection, type Section } from '#protocol/chunk-index.js';
import type { ChunkOp } from './tree-diff.js';
import type { ChunkStore, ChunkedPartial } from './chunk-ports.js';
import { UpdateError } from '../errors.js';

type LocalOp = Extract<ChunkOp, { kind: 'local' }>;
export type SingleOp = Exclude<ChunkOp, LocalOp>;

/** Held chunks are copied, and partial bytes read back, in blocks of at most this size. */
export const COPY_BYTES = 2 * 1024 * 1024;
/** Copy buffers in flight: one being read, one being hashed, one being written. */
const COPY_SLOTS = 3;

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

/** Consecutive held chunks of one blob, copied with one read and one write. */
interface CopyBlock {
  readonly blob: string;
  readonly from: number;
  readonly offset: number;
  readonly length: number;
  readonly chunks: Section;
}

interface Slot {
  readonly buffer: Uint8Array;
  /** Settles when the write from this buffer is done (rejects with its error). */
  free: Promise<void>;
}

/** A block whose read has started. */
interface Pending {
  readonly block: CopyBlock;
  readonly slot: Slot;
  /** The bytes read, or undefined when the held blob could not give them all. */
  readonly read: Promise<Uint8Array | undefined>;
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
  const whole = createHash('sha256');
  let intact = true;
  const slots: Slot[] = Array.from({ length: COPY_SLOTS }, () => ({
    buffer: new Uint8Array(COPY_BYTES),
    free: Promise.resolve(),
  }));
  let started = 0;
  let pending: Pending | undefined;

  const start = (block: CopyBlock): Pending => {
    const slot = slots[started++ % COPY_SLOTS] as Slot;
    const into = slot.buffer.subarray(0, block.length);
    // A failed write rejects here (the buffer is never reused after it); a failed read of a
    // held blob only means its chunks must come from elsewhere.
    const read = slot.free.then(() =>
      ports.chunks.readBlob(block.blob, block.from, into).then(
        (bytes) => (bytes.length === block.length ? bytes : undefined),
        () => undefined,
      ),
    );
    // Awaited by finish, unless an earlier failure ends the pass first.
    void read.catch(() => undefined);
    return { block, slot, read };
  };
  const finish = async (p: Pending): Promise<void> => {
    const bytes = await p.read;
    if (bytes === undefined) {
      intact = false;
      return;
    }
    whole.update(bytes);
    const write = ports.put(p.block.offset, bytes, p.block.chunks);
    // Handled here, awaited before the buffer is reused and at the end.
    void write.catch(() => undefined);
    p.slot.free = write;
  };
  const drain = async (): Promise<void> => {
    if (pending !== undefined) await finish(pending);
    pending = undefined;
  };
  const copy = async (block: CopyBlock): Promise<void> => {
    const next = start(block);
    await drain();
    pending = next;
  };

  // The block being gathered: consecutive held chunks, in one blob and in the artifact, across
  // ops (the plan cuts held runs at subtree boundaries, often a few hundred KiB). Its level 0
  // entries are kept as slices of the ops' sections: `parts`, then the open one.
  let open: { blob: string; from: number; offset: number; length: number } | undefined;
  let parts: Section[] = [];
  let partOp: LocalOp | undefined;
  let partFirst = 0;
  let partEnd = 0;
  const closePart = (): void => {
    if (partOp !== undefined)
      parts.push(sliceSection(partOp.from.chunks, partFirst, partEnd - partFirst));
    partOp = undefined;
  };
  const flushBlock = async (): Promise<void> => {
    if (open === undefined) return;
    closePart();
    const block = { ...open, chunks: joinSections(parts) };
    open = undefined;
    parts = [];
    await copy(block);
  };

  let backAt = 0;
  let backBytes = 0;
  const flushBack = async (): Promise<void> => {
    if (backBytes === 0) return;
    await drain();
    await readBack(ports, whole, backAt, backBytes);
    backBytes = 0;
  };
  const back = async (offset: number, length: number): Promise<void> => {
    await flushBlock();
    if (backBytes > 0 && (backAt + backBytes !== offset || backBytes + length > COPY_BYTES)) {
      await flushBack();
    }
    if (backBytes === 0) backAt = offset;
    backBytes += length;
  };
  /** Adds chunk `i` of a held run: `length` bytes at `from` in its blob, `offset` here. */
  const hold = async (op: LocalOp, i: number, from: number, offset: number, length: number) => {
    const follows =
      open !== undefined &&
      open.blob === op.from.blob &&
      open.from + open.length === from &&
      open.offset + open.length === offset &&
      open.length + length <= COPY_BYTES;
    if (!follows) {
      await flushBlock();
      // Bytes to read back come earlier in the artifact: hashed before this block.
      await flushBack();
    }
    open ??= { blob: op.from.blob, from, offset, length: 0 };
    open.length += length;
    if (partOp === op && partEnd === i) {
      partEnd++;
    } else {
      closePart();
      partOp = op;
      partFirst = i;
      partEnd = i + 1;
    }
  };

  for (const op of ops) {
    if (op.kind === 'local') {
      const { chunks } = op.from;
      let at = 0;
      for (let i = 0; i < chunks.count; i++) {
        const length = entrySpan(chunks, i);
        if (done(op.offset + at, length)) await back(op.offset + at, length);
        else await hold(op, i, op.from.offset + at, op.offset + at, length);
        at += length;
      }
    } else if (op.kind === 'repeat' && !done(op.offset, op.length)) {
      await flushBlock();
      await flushBack();
      await drain();
      const bytes = await ports.partial.read(op.sourceOffset, op.length);
      if (!sha256Equals(bytes, op.sha256)) {
        throw new UpdateError('HASH_MISMATCH', `${ports.what}: a repeated chunk changed`);
      }
      await ports.put(op.offset, bytes, singleChunk(op));
      whole.update(bytes);
    } else {
      await back(op.offset, op.length);
    }
  }
  await flushBlock();
  await flushBack();
  await drain();
  for (const slot of slots) await slot.free;
  const digest = whole.digest('hex');
  return intact ? digest : undefined;
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
async function readBack(
  ports: SweepPorts,
  whole: ReturnType<typeof createHash>,
  offset: number,
  length: number,
) {
  const bytes = await ports.partial.read(offset, length);
  if (bytes.length !== length) {
    throw new UpdateError('IO', `${ports.what}: the partial file is shorter than written`);
  }
  whole.update(bytes);
}
