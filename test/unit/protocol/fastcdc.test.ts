import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { chunkerParamsProblem, FastCdc, type ChunkerParams } from '#protocol/fastcdc.js';
import { DEFAULT_CHUNKER_PARAMS } from '#protocol/chunk-index.js';

/** 1 MiB of SHA-256 counter output: reproducible, incompressible test input. */
function counterBytes(blocks: number, seed = 0): Uint8Array {
  const out = new Uint8Array(blocks * 32);
  const word = new Uint8Array(8);
  const view = new DataView(word.buffer);
  for (let i = 0; i < blocks; i++) {
    view.setUint32(0, seed);
    view.setUint32(4, i);
    out.set(createHash('sha256').update(word).digest(), i * 32);
  }
  return out;
}

function cutAll(data: Uint8Array, params: ChunkerParams, split: (i: number) => number): number[] {
  const cdc = new FastCdc(params);
  const cuts: number[] = [];
  for (let at = 0, i = 0; at < data.length; i++) {
    const step = Math.max(1, split(i));
    cdc.push(data.subarray(at, at + step), cuts);
    at += step;
  }
  const last = cdc.finish();
  if (last > 0) cuts.push(last);
  return cuts;
}

const whole = (): number => Number.MAX_SAFE_INTEGER;
const data = counterBytes(32768);

describe('FastCdc (docs/PROTOCOL.md §2.6)', () => {
  it('cuts the pinned vector exactly (the cut points are part of the wire format)', () => {
    const cuts = cutAll(data, DEFAULT_CHUNKER_PARAMS, whole);
    expect(cuts.length).toBe(52);
    expect(cuts.slice(0, 6)).toEqual([26923, 24186, 18568, 17755, 20744, 17653]);
    expect(createHash('sha256').update(JSON.stringify(cuts)).digest('hex')).toBe(
      '28a848d285b2d6636dea8ea8b430aa54f5fc4bfb02a1032ce9eea8ee79f6a107',
    );
  });

  it('agrees with a byte-at-a-time reading of the specification', () => {
    // The rule exactly as docs/PROTOCOL.md §2.6 words it, with no skipping or phases fused.
    const gear = Array.from({ length: 256 }, (_, b) =>
      createHash('sha256')
        .update('verified-updater fastcdc gear v1')
        .update(Uint8Array.of(b))
        .digest()
        .readUInt32BE(0),
    );
    const top = (bits: number): number => (2 ** bits - 1) * 2 ** (32 - bits);
    const { minSize, avgSize, maxSize } = DEFAULT_CHUNKER_PARAMS;
    const k = Math.log2(avgSize);
    const reference: number[] = [];
    let start = 0;
    while (start < data.length) {
      let h = 0;
      let end = Math.min(data.length, start + maxSize);
      for (let i = start + minSize; i < end; i++) {
        h = (h * 2 + (gear[data[i] as number] as number)) % 2 ** 32;
        const mask = i + 1 - start <= avgSize ? top(k + 2) : top(k - 2);
        if ((h & mask) >>> 0 === 0) {
          end = i + 1;
          break;
        }
      }
      reference.push(end - start);
      start = end;
    }
    expect(cutAll(data, DEFAULT_CHUNKER_PARAMS, whole)).toEqual(reference);
  });

  it('gives the same cuts whatever the buffer split (streaming)', () => {
    const once = cutAll(data, DEFAULT_CHUNKER_PARAMS, whole);
    const sizes = [1, 7, 4095, 4096, 16384, 65537];
    expect(cutAll(data, DEFAULT_CHUNKER_PARAMS, (i) => sizes[i % sizes.length] as number)).toEqual(
      once,
    );
    expect(cutAll(data, DEFAULT_CHUNKER_PARAMS, () => 1000)).toEqual(once);
  });

  it('keeps every chunk within min and max, only the last may be shorter', () => {
    const cuts = cutAll(data, DEFAULT_CHUNKER_PARAMS, whole);
    expect(cuts.reduce((a, b) => a + b, 0)).toBe(data.length);
    for (const cut of cuts.slice(0, -1)) {
      expect(cut).toBeGreaterThanOrEqual(DEFAULT_CHUNKER_PARAMS.minSize);
      expect(cut).toBeLessThanOrEqual(DEFAULT_CHUNKER_PARAMS.maxSize);
    }
    const mean = data.length / cuts.length;
    expect(mean).toBeGreaterThan(DEFAULT_CHUNKER_PARAMS.avgSize);
    expect(mean).toBeLessThan(DEFAULT_CHUNKER_PARAMS.avgSize * 1.5);
  });

  it('cuts data without content at the maximum size', () => {
    expect(cutAll(new Uint8Array(300_000), DEFAULT_CHUNKER_PARAMS, whole)).toEqual([
      65536, 65536, 65536, 65536, 37856,
    ]);
  });

  it('finds the same boundaries again after an insertion near the start', () => {
    const inserted = new Uint8Array(data.length + 1000);
    inserted.set(data.subarray(0, 5000), 0);
    inserted.set(counterBytes(32, 7).subarray(0, 1000), 5000);
    inserted.set(data.subarray(5000), 6000);
    const before = cutAll(data, DEFAULT_CHUNKER_PARAMS, whole);
    const after = cutAll(inserted, DEFAULT_CHUNKER_PARAMS, whole);
    // Chunk ends, as offsets from the end of the file, are the same after resynchronising.
    const ends = (cuts: number[]): Set<number> => {
      let at = 0;
      return new Set(cuts.map((c) => (at += c)).map((end, _i, all) => all.at(-1)! - end));
    };
    const old = ends(before);
    const shared = [...ends(after)].filter((e) => old.has(e)).length;
    expect(shared).toBeGreaterThanOrEqual(before.length - 2);
  });

  it('reports nothing before the minimum and nothing for empty input', () => {
    const cdc = new FastCdc(DEFAULT_CHUNKER_PARAMS);
    const cuts: number[] = [];
    cdc.push(new Uint8Array(0), cuts);
    cdc.push(data.subarray(0, 4095), cuts);
    expect(cuts).toEqual([]);
    expect(cdc.finish()).toBe(4095);
    expect(cdc.finish()).toBe(0);
  });

  const problems: [string, ChunkerParams][] = [
    ['an average that is not a power of two', { minSize: 4096, avgSize: 20000, maxSize: 65536 }],
    ['min not below avg', { minSize: 16384, avgSize: 16384, maxSize: 65536 }],
    ['max not above avg', { minSize: 4096, avgSize: 16384, maxSize: 16384 }],
    ['an average below 1 KiB', { minSize: 256, avgSize: 512, maxSize: 2048 }],
    ['a maximum over 16 MiB', { minSize: 4096, avgSize: 16384, maxSize: 32 * 1024 * 1024 }],
    ['a fractional size', { minSize: 4096.5, avgSize: 16384, maxSize: 65536 }],
  ];
  for (const [what, params] of problems) {
    it(`refuses ${what}`, () => {
      expect(chunkerParamsProblem(params)).toBeTypeOf('string');
      expect(() => new FastCdc(params)).toThrow(RangeError);
    });
  }
});
