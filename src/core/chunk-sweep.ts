/**
 * The one pass in artifact order that finishes a chunked download (docs/UPDATER.md §9.1):
 * held chunks are copied into the partial in runs of up to 1 MiB of one blob (one read, one
 * write, one reused buffer), each chunk re-hashed against the signed index first; bytes already
 * in the partial (fetched ranges, resumed chunks) are read back; a chunk repeated inside the
 * artifact is copied from its first place. Everything passes through the whole-file SHA-256 in
 * order, so the blob is never read again to check its digest before promotion.
 *
 * The two hashes of a held run overlap: its chunks are hashed by WebCrypto on the thread pool
 * (which copies them first) while the main thread feeds the same bytes to the whole-file
 * SHA-256. That is optimistic: when a chunk does not verify (a held blob damaged on disk), its
 * bytes already went into the whole hash, so the pass answers no digest and the partial hashes
 * the finished file from disk before promotion (chunk-ports.ts `complete`): slower, never less
 * checked.
 */
import { createHash, webcrypto, type Hash } from 'node:crypto';
import { entryHash, entrySpan, sliceSection, type Section } from '../protocol/chunk-index.js';
import type { ChunkOp } from './chunk-delta-plan.js';
import type { ChunkStore, ChunkedPartial } from './chunk-ports.js';
import { UpdateError } from './errors.js';

type LocalOp = Extract<ChunkOp, { kind: 'local' }>;
export type SingleOp = Exclude<ChunkOp, LocalOp>;

/** Held chunks are copied, and partial bytes read back, in runs of at most this size. */
export const COPY_BYTES = 1024 * 1024;

export interface SweepPorts {
  readonly chunks: ChunkStore;
  readonly partial: ChunkedPartial;
  /** Writes verified chunks at `offset` (and counts them). */
  readonly put: (offset: number, bytes: Uint8Array, chunks: Section) => Promise<void>;
  /** Fetches one chunk that a held blob no longer holds intact, and puts it. */
  readonly refetch: (op: SingleOp) => Promise<void>;
  /** For messages. */
  readonly what: string;
}

/** One chunk of a held run: where it goes and where it comes from. */
interface HeldChunk {
  readonly op: LocalOp;
  readonly index: number;
  readonly offset: number;
  readonly from: number;
  readonly length: number;
}

export function sha256Equals(bytes: Uint8Array, expected: Uint8Array): boolean {
  return createHash('sha256').update(bytes).digest().equals(expected);
}

/** SHA-256 on the thread pool (the input is copied when the job starts, so it may be reused). */
async function sha256Async(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await webcrypto.subtle.digest('SHA-256', bytes));
}

function sameDigest(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The level 0 entries of one fetched or repeated chunk. */
export function singleChunk(op: { readonly length: number; readonly sha256: Uint8Array }) {
  const bytes = new Uint8Array(36);
  new DataView(bytes.buffer).setUint32(0, op.length);
  bytes.set(op.sha256, 4);
  return { level: 0, count: 1, bytes };
}

/** The whole-file hash of the pass; `tainted` once it took bytes that did not verify. */
interface WholeHash {
  readonly hash: Hash;
  tainted: boolean;
}

/**
 * Runs the pass over `ops` (the artifact, tiled in order); `done`: chunks already in the
 * partial (resumed or fetched), artifact offset -> length. Resolves to the whole SHA-256 (hex),
 * or to undefined when a held chunk did not verify (the file must then be hashed from disk).
 */
export async function sweep(
  ports: SweepPorts,
  ops: readonly ChunkOp[],
  done: (offset: number, length: number) => boolean,
): Promise<string | undefined> {
  const whole: WholeHash = { hash: createHash('sha256'), tainted: false };
  const buffer = new Uint8Array(COPY_BYTES);
  let run: HeldChunk[] = [];
  let runBytes = 0;
  let backAt = 0;
  let backBytes = 0;

  const flushBack = async (): Promise<void> => {
    if (backBytes === 0) return;
    await readBack(ports, whole, backAt, backBytes);
    backBytes = 0;
  };
  const flushRun = async (): Promise<void> => {
    if (run.length === 0) return;
    await copyRun(ports, whole, run, buffer.subarray(0, runBytes));
    run = [];
    runBytes = 0;
  };
  const back = async (offset: number, length: number): Promise<void> => {
    await flushRun();
    if (backBytes > 0 && (backAt + backBytes !== offset || backBytes + length > COPY_BYTES)) {
      await flushBack();
    }
    if (backBytes === 0) backAt = offset;
    backBytes += length;
  };
  const copy = async (c: HeldChunk): Promise<void> => {
    await flushBack();
    const last = run[run.length - 1];
    const follows =
      last !== undefined &&
      last.op.from.blob === c.op.from.blob &&
      last.from + last.length === c.from &&
      last.offset + last.length === c.offset &&
      runBytes + c.length <= COPY_BYTES;
    if (!follows) await flushRun();
    run.push(c);
    runBytes += c.length;
  };

  for (const op of ops) {
    if (op.kind === 'local') {
      let at = 0;
      for (let i = 0; i < op.from.chunks.count; i++) {
        const length = entrySpan(op.from.chunks, i);
        const offset = op.offset + at;
        if (done(offset, length)) await back(offset, length);
        else await copy({ op, index: i, offset, from: op.from.offset + at, length });
        at += length;
      }
    } else if (op.kind === 'repeat' && !done(op.offset, op.length)) {
      await flushRun();
      await flushBack();
      const bytes = await ports.partial.read(op.sourceOffset, op.length);
      if (!sha256Equals(bytes, op.sha256)) {
        throw new UpdateError('HASH_MISMATCH', `${ports.what}: a repeated chunk changed`);
      }
      await ports.put(op.offset, bytes, singleChunk(op));
      whole.hash.update(bytes);
    } else {
      await back(op.offset, op.length);
    }
  }
  await flushRun();
  await flushBack();
  const digest = whole.hash.digest('hex');
  return whole.tainted ? undefined : digest;
}

/** Reads `length` bytes of the partial at `offset` into the whole hash. */
async function readBack(ports: SweepPorts, whole: WholeHash, offset: number, length: number) {
  const bytes = await ports.partial.read(offset, length);
  if (bytes.length !== length) {
    throw new UpdateError('IO', `${ports.what}: the partial file is shorter than written`);
  }
  whole.hash.update(bytes);
}

/**
 * Copies one run of held chunks (contiguous in one blob and in the artifact): one read, each
 * chunk checked against the new index's SHA-256 (the held entry equals it: local-chunks.ts),
 * verified stretches written in order; a chunk that does not verify (its blob damaged on disk)
 * is fetched instead, and the whole hash is marked tainted (it already took the read bytes).
 */
async function copyRun(ports: SweepPorts, whole: WholeHash, run: HeldChunk[], into: Uint8Array) {
  const first = run[0] as HeldChunk;
  const bytes = await ports.chunks
    .readBlob(first.op.from.blob, first.from, into)
    .catch(() => new Uint8Array(0));
  const pieces: Uint8Array[] = [];
  let at = 0;
  for (const c of run) {
    pieces.push(bytes.subarray(at, at + c.length));
    at += c.length;
  }
  const digests = Promise.all(
    pieces.map((piece, i) =>
      piece.length === (run[i] as HeldChunk).length
        ? sha256Async(piece)
        : Promise.resolve(undefined),
    ),
  );
  // The whole hash runs here while the thread pool hashes the chunks.
  whole.hash.update(bytes.subarray(0, Math.min(at, bytes.length)));
  if (bytes.length < at) whole.tainted = true;
  const got = await digests;
  let good: HeldChunk[] = [];
  let goodAt = 0;
  const writeGood = async (): Promise<void> => {
    const head = good[0];
    if (head === undefined) return;
    const length = good.reduce((n, c) => n + c.length, 0);
    const entries = good.map((c) => sliceSection(c.op.from.chunks, c.index, 1).bytes);
    const section: Section = { level: 0, count: good.length, bytes: Buffer.concat(entries) };
    await ports.put(head.offset, bytes.subarray(goodAt, goodAt + length), section);
    good = [];
  };
  at = 0;
  for (const [i, c] of run.entries()) {
    const sha256 = entryHash(c.op.from.chunks, c.index);
    const digest = got[i];
    if (digest !== undefined && sameDigest(digest, sha256)) {
      if (good.length === 0) goodAt = at;
      good.push(c);
    } else {
      await writeGood();
      whole.tainted = true;
      await ports.refetch({ kind: 'fetch', offset: c.offset, length: c.length, sha256 });
    }
    at += c.length;
  }
  await writeGood();
}
