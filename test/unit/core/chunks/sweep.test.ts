import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ChunkOp } from '#core/chunks/tree-diff.js';
import type { ChunkStore, ChunkedPartial } from '#core/chunks/chunk-ports.js';
import { recheckHeld } from '#core/chunks/recheck.js';
import { COPY_BYTES, sweep, type SweepPorts } from '#core/chunks/sweep.js';
import type { Section } from '#protocol/chunk-index.js';

const KiB = 1024;

function bytesOf(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = (i * 31 + seed * 7 + (i >>> 8)) & 0xff;
  return out;
}

/** A copy of `data` with one bit flipped at each of `at`. */
function flipped(data: Uint8Array, ...at: number[]): Uint8Array {
  const out = Uint8Array.from(data);
  for (const i of at) out[i] = (out[i] as number) ^ 1;
  return out;
}

const sha = (b: Uint8Array): Buffer => createHash('sha256').update(b).digest();

/** Level 0 entries of `data` cut at `lengths`. */
function level0(data: Uint8Array, lengths: readonly number[]): Section {
  const bytes = new Uint8Array(lengths.length * 36);
  const view = new DataView(bytes.buffer);
  let at = 0;
  lengths.forEach((length, i) => {
    view.setUint32(i * 36, length);
    bytes.set(sha(data.subarray(at, at + length)), i * 36 + 4);
    at += length;
  });
  return { level: 0, count: lengths.length, bytes };
}

/** An in-memory partial and held blob store; `writes` lists each put's offset and length. */
function fakes(held: Map<string, Uint8Array>, size: number) {
  const file = new Uint8Array(size);
  const writes: [number, number][] = [];
  const refetched: number[] = [];
  const partial: ChunkedPartial = {
    verified: new Map(),
    write: () => Promise.reject(new Error('not used')),
    read: (offset, length) => Promise.resolve(file.slice(offset, offset + length)),
    complete: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
  const chunks: Pick<ChunkStore, 'readBlob'> = {
    readBlob(sha256, offset, into) {
      const blob = held.get(sha256);
      if (blob === undefined) return Promise.reject(new Error('gone'));
      const part = blob.subarray(offset, offset + into.length);
      into.set(part);
      return Promise.resolve(into.subarray(0, part.length));
    },
  };
  const put = (offset: number, bytes: Uint8Array, section: Section): Promise<void> => {
    let sum = 0;
    for (let i = 0; i < section.count; i++) {
      sum += new DataView(section.bytes.buffer, section.bytes.byteOffset).getUint32(i * 36);
    }
    expect(sum).toBe(bytes.length);
    file.set(bytes, offset);
    writes.push([offset, bytes.length]);
    return Promise.resolve();
  };
  return { file, writes, refetched, partial, chunks, put };
}

describe('sweep', () => {
  // Chunks of 60 KiB: a held run of 100 of them (6000 KiB) is more than two copy blocks.
  const lengths = Array.from({ length: 100 }, () => 60 * KiB);
  const old = bytesOf(100 * 60 * KiB, 1);
  const fresh = bytesOf(60 * KiB, 2);
  // The new artifact: one fetched chunk, then the whole held blob.
  const artifact = Buffer.concat([fresh, old]);
  const ops: ChunkOp[] = [
    { kind: 'fetch', offset: 0, length: fresh.length, sha256: sha(fresh) },
    {
      kind: 'local',
      offset: fresh.length,
      length: old.length,
      from: { blob: 'old', offset: 0, length: old.length, chunks: level0(old, lengths) },
    },
  ];

  function ports(held: Map<string, Uint8Array>) {
    const f = fakes(held, artifact.length);
    f.file.set(fresh, 0);
    const sweepPorts: SweepPorts = {
      chunks: f.chunks as ChunkStore,
      partial: f.partial,
      put: f.put,
      refetch: (op) => {
        f.refetched.push(op.offset);
        f.file.set(artifact.subarray(op.offset, op.offset + op.length), op.offset);
        return Promise.resolve();
      },
      what: 'test',
    };
    return { ...f, sweepPorts };
  }
  const fetched = (offset: number): boolean => offset === 0;

  it('copies held chunks in blocks of whole chunks, and answers the whole SHA-256', async () => {
    const f = ports(new Map([['old', old]]));
    const digest = await sweep(f.sweepPorts, ops, fetched);
    expect(digest).toBe(sha(artifact).toString('hex'));
    expect(Buffer.from(f.file).equals(artifact)).toBe(true);
    expect(f.writes.length).toBe(
      Math.ceil(old.length / (Math.floor(COPY_BYTES / (60 * KiB)) * 60 * KiB)),
    );
    for (const [, length] of f.writes) expect(length).toBeLessThanOrEqual(COPY_BYTES);
  });

  it('gathers consecutive held runs of several ops into one block', async () => {
    // The plan cuts held runs at subtree boundaries: ten ops of ten chunks, one after another.
    const section = level0(old, lengths);
    const split: ChunkOp[] = [ops[0] as ChunkOp];
    for (let k = 0; k < 10; k++) {
      const at = k * 10 * 60 * KiB;
      split.push({
        kind: 'local',
        offset: fresh.length + at,
        length: 10 * 60 * KiB,
        from: {
          blob: 'old',
          offset: at,
          length: 10 * 60 * KiB,
          chunks: { level: 0, count: 10, bytes: section.bytes.subarray(k * 360, (k + 1) * 360) },
        },
      });
    }
    const f = ports(new Map([['old', old]]));
    expect(await sweep(f.sweepPorts, split, fetched)).toBe(sha(artifact).toString('hex'));
    expect(f.writes.length).toBe(3);
  });

  it('answers the digest of what it wrote when a held blob changed (the caller compares)', async () => {
    const damaged = flipped(old, 3 * 60 * KiB + 5);
    const f = ports(new Map([['old', damaged]]));
    const digest = await sweep(f.sweepPorts, ops, fetched);
    expect(digest).not.toBe(sha(artifact).toString('hex'));
    expect(digest).toBe(sha(Buffer.concat([fresh, damaged])).toString('hex'));
  });

  it('fails with the error of a failed write, and leaves no rejection unhandled', async () => {
    // Enough blocks that reads wait on buffers whose writes failed when the pass gives up.
    const long = bytesOf(400 * 60 * KiB, 3);
    const chunks = level0(
      long,
      Array.from({ length: 400 }, () => 60 * KiB),
    );
    const longOps: ChunkOp[] = [
      {
        kind: 'local',
        offset: 0,
        length: long.length,
        from: { blob: 'long', offset: 0, length: long.length, chunks },
      },
    ];
    const f = fakes(new Map([['long', long]]), long.length);
    let puts = 0;
    const failing: SweepPorts = {
      chunks: f.chunks as ChunkStore,
      partial: f.partial,
      put: (offset, bytes, section) =>
        ++puts >= 2 ? Promise.reject(new Error('disk full')) : f.put(offset, bytes, section),
      refetch: () => Promise.resolve(),
      what: 'test',
    };
    await expect(sweep(failing, longOps, () => false)).rejects.toThrow('disk full');
  });

  it('answers no digest when a held blob cannot be read', async () => {
    const f = ports(new Map());
    expect(await sweep(f.sweepPorts, ops, fetched)).toBeUndefined();
  });

  it('re-check fetches only the held chunks that do not match the index', async () => {
    const damaged = flipped(old, 3 * 60 * KiB + 5, 70 * 60 * KiB);
    const f = ports(new Map([['old', damaged]]));
    await sweep(f.sweepPorts, ops, fetched);
    expect(await recheckHeld(f.sweepPorts, ops, fetched)).toBe(2);
    expect(f.refetched).toEqual([fresh.length + 3 * 60 * KiB, fresh.length + 70 * 60 * KiB]);
    expect(Buffer.from(f.file).equals(artifact)).toBe(true);
  });

  it('re-check fetches every chunk of a held blob that could not be read', async () => {
    const f = ports(new Map());
    await sweep(f.sweepPorts, ops, fetched);
    expect(await recheckHeld(f.sweepPorts, ops, fetched)).toBe(100);
    expect(Buffer.from(f.file).equals(artifact)).toBe(true);
  });
});
