import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PieceAssembler, PieceRefused, type VerifiedPiece } from '#core/chunks/piece-assembler.js';

const RESOURCE = Uint8Array.from({ length: 20_000 }, (_x, i) => (i * 13 + (i >> 7)) & 0xff);
const piece = (offset: number, length: number): VerifiedPiece => ({
  offset,
  length,
  sha256: createHash('sha256')
    .update(RESOURCE.subarray(offset, offset + length))
    .digest(),
});

interface Delivered {
  readonly piece: VerifiedPiece;
  readonly bytes: Uint8Array;
}

function assembler(pieces: VerifiedPiece[]): {
  a: PieceAssembler<VerifiedPiece>;
  got: Delivered[];
} {
  const got: Delivered[] = [];
  const a = new PieceAssembler(pieces, 'test', (p, bytes) => {
    got.push({ piece: p, bytes: Uint8Array.from(bytes) });
    return Promise.resolve();
  });
  return { a, got };
}

/** Feeds RESOURCE[from, to) to `a` in chunks of `size`. */
async function feed(
  a: PieceAssembler<VerifiedPiece>,
  from: number,
  to: number,
  size: number,
): Promise<void> {
  for (let at = from; at < to; at += size) {
    await a.bytes(at, RESOURCE.subarray(at, Math.min(to, at + size)));
  }
}

describe('PieceAssembler', () => {
  it('hands on each piece with its bytes, whether it lies in one chunk or straddles several', async () => {
    const pieces = [piece(0, 100), piece(100, 3000), piece(3100, 50), piece(9000, 4000)];
    for (const size of [1, 7, 64, 1000, 4096, 20_000]) {
      const { a, got } = assembler(pieces);
      await feed(a, 0, 3150, size);
      await feed(a, 9000, 13_000, size);
      expect(a.delivered).toBe(4);
      expect(got.map((d) => d.piece)).toEqual(pieces);
      for (const d of got) {
        expect(d.bytes).toEqual(RESOURCE.subarray(d.piece.offset, d.piece.offset + d.piece.length));
      }
    }
  });

  it('hands on a piece inside one chunk as a view of that chunk, not a copy', async () => {
    const chunk = Buffer.from(RESOURCE.subarray(0, 8192));
    const views: Uint8Array[] = [];
    const a = new PieceAssembler([piece(0, 4096), piece(4096, 4096)], 'test', (_p, bytes) => {
      views.push(bytes);
      return Promise.resolve();
    });
    await a.bytes(0, chunk);
    expect(views).toHaveLength(2);
    expect(views.map((v) => v.buffer)).toEqual([chunk.buffer, chunk.buffer]);
    expect(views.map((v) => v.byteOffset)).toEqual([chunk.byteOffset, chunk.byteOffset + 4096]);
  });

  it('gathers a piece that straddles chunks into a buffer of its own', async () => {
    const first = Buffer.from(RESOURCE.subarray(0, 3000));
    const second = Buffer.from(RESOURCE.subarray(3000, 8000));
    const views: Uint8Array[] = [];
    const a = new PieceAssembler([piece(2000, 4096)], 'test', (_p, bytes) => {
      views.push(bytes);
      return Promise.resolve();
    });
    await a.bytes(0, first);
    await a.bytes(3000, second.subarray(0, 3096));
    expect(views).toHaveLength(1);
    expect(views[0]?.buffer).not.toBe(first.buffer);
    expect(views[0]?.buffer).not.toBe(second.buffer);
    expect(views[0]).toEqual(RESOURCE.subarray(2000, 6096));
  });

  it('hands on a piece of no bytes when the bytes reach its offset', async () => {
    const { a, got } = assembler([piece(0, 10), piece(10, 0), piece(10, 5)]);
    await a.bytes(0, RESOURCE.subarray(0, 15));
    expect(got.map((d) => [d.piece.offset, d.bytes.length])).toEqual([
      [0, 10],
      [10, 0],
      [10, 5],
    ]);
  });

  it('drops the bytes of a gap between ranges', async () => {
    const { a, got } = assembler([piece(10, 20), piece(5000, 10)]);
    await a.bytes(0, RESOURCE.subarray(0, 5010));
    expect(got.map((d) => d.piece.offset)).toEqual([10, 5000]);
  });

  it('refuses a piece whose bytes do not match, inside one chunk or across chunks', async () => {
    const bad = { ...piece(0, 4096), sha256: new Uint8Array(32) };
    const whole = assembler([bad]);
    await expect(whole.a.bytes(0, RESOURCE.subarray(0, 4096))).rejects.toBeInstanceOf(PieceRefused);
    expect(whole.got).toHaveLength(0);
    const split = assembler([bad]);
    await split.a.bytes(0, RESOURCE.subarray(0, 1000));
    await expect(split.a.bytes(1000, RESOURCE.subarray(1000, 4096))).rejects.toBeInstanceOf(
      PieceRefused,
    );
    expect(split.got).toHaveLength(0);
  });

  it('refuses an answer that skips bytes of a piece, or brings bytes past the last', async () => {
    const skip = assembler([piece(0, 100)]);
    await skip.a.bytes(0, RESOURCE.subarray(0, 50));
    await expect(skip.a.bytes(60, RESOURCE.subarray(60, 100))).rejects.toMatchObject({
      code: 'SIZE_MISMATCH',
    });
    const extra = assembler([piece(0, 100)]);
    await expect(extra.a.bytes(0, RESOURCE.subarray(0, 101))).rejects.toMatchObject({
      code: 'SIZE_MISMATCH',
    });
    expect(extra.got).toHaveLength(1);
  });
});
