/**
 * The copy stage of the pass that finishes a chunked download (docs/UPDATER.md §9.1, sweep.ts):
 * held chunks are copied in blocks of up to COPY_BYTES of one blob, one read and one write
 * each, over a few reused buffers. The read of the next block runs on the thread pool while
 * the main thread hashes the current one and its write is queued.
 */
import type { Hash } from 'node:crypto';
import type { Section } from '#protocol/chunk-index.js';
import type { ChunkStore } from './chunk-ports.js';

/** Held chunks are copied, and partial bytes read back, in blocks of at most this size. */
export const COPY_BYTES = 2 * 1024 * 1024;
/** Copy buffers in flight: one being read, one being hashed, one being written. */
const COPY_SLOTS = 3;

/** What the pipeline reads from and writes to (a part of the sweep's ports). */
export interface CopyPorts {
  readonly chunks: ChunkStore;
  /** Writes chunks at `offset` (and counts them). */
  readonly put: (offset: number, bytes: Uint8Array, chunks: Section) => Promise<void>;
}

/** Consecutive held chunks of one blob, copied with one read and one write. */
export interface CopyBlock {
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
 * The copy pipeline: the read of the next block runs on the thread pool while the current one
 * is hashed and its write queued, over COPY_SLOTS reused buffers.
 */
export class CopyPipeline {
  private readonly ports: CopyPorts;
  private readonly whole: Hash;
  private readonly slots: Slot[];
  private started = 0;
  private pending: Pending | undefined;
  /** False once a held blob could not give a block in full. */
  intact = true;

  constructor(ports: CopyPorts, whole: Hash) {
    this.ports = ports;
    this.whole = whole;
    this.slots = Array.from({ length: COPY_SLOTS }, () => ({
      buffer: new Uint8Array(COPY_BYTES),
      free: Promise.resolve(),
    }));
  }

  /** Starts the block's read, then hashes and writes the block before it. */
  async copy(block: CopyBlock): Promise<void> {
    const next = this.start(block);
    await this.drain();
    this.pending = next;
  }

  /** Hashes and writes the block in flight, if any. */
  async drain(): Promise<void> {
    if (this.pending !== undefined) await this.finish(this.pending);
    this.pending = undefined;
  }

  /** Waits for every queued write (the first failure rejects). */
  async settle(): Promise<void> {
    for (const slot of this.slots) await slot.free;
  }

  private start(block: CopyBlock): Pending {
    const slot = this.slots[this.started++ % COPY_SLOTS] as Slot;
    const into = slot.buffer.subarray(0, block.length);
    // A failed write rejects here (the buffer is never reused after it); a failed read of a
    // held blob only means its chunks must come from elsewhere.
    const read = slot.free.then(() =>
      this.ports.chunks.readBlob(block.blob, block.from, into).then(
        (bytes) => (bytes.length === block.length ? bytes : undefined),
        () => undefined,
      ),
    );
    // Awaited by finish, unless an earlier failure ends the pass first.
    void read.catch(() => undefined);
    return { block, slot, read };
  }

  private async finish(p: Pending): Promise<void> {
    const bytes = await p.read;
    if (bytes === undefined) {
      this.intact = false;
      return;
    }
    this.whole.update(bytes);
    const write = this.ports.put(p.block.offset, bytes, p.block.chunks);
    // Handled here, awaited before the buffer is reused and at the end.
    void write.catch(() => undefined);
    p.slot.free = write;
  }
}
