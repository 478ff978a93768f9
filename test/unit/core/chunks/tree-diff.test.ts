import { describe, expect, it } from 'vitest';
import { planChunkDelta, type SectionRequest } from '#core/chunks/tree-diff.js';
import { buildLocalChunks, NO_LOCAL_CHUNKS } from '#core/chunks/local-chunks.js';
import { ChunkIndexBuilder, type BuiltChunkIndex } from '#protocol/chunk-index-builder.js';
import { parseChunkIndex, parseSection } from '#protocol/chunk-index-parse.js';
import type { ChunkIndex } from '#protocol/chunk-index.js';
import { counterBytes } from '#test/chunk-index-kit.js';

const concat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

function build(data: Uint8Array): BuiltChunkIndex {
  const builder = new ChunkIndexBuilder();
  builder.update(data);
  return builder.finish();
}

function indexOf(built: BuiltChunkIndex): ChunkIndex {
  const signed = { sha256: built.indexSha256, size: built.indexBytes.length };
  const artifact = { sha256: built.index.artifactSha256, size: built.index.artifactSize };
  return parseChunkIndex(built.indexBytes, signed, artifact);
}

/** Plans `next` against held blobs, serving sections from its list; counts what was asked. */
async function plan(next: BuiltChunkIndex, held: Record<string, BuiltChunkIndex>) {
  const index = indexOf(next);
  const local = buildLocalChunks(Object.entries(held).map(([blob, tree]) => ({ blob, tree })));
  const asked: SectionRequest[] = [];
  const result = await planChunkDelta(index, local, (requests) => {
    asked.push(...requests);
    return Promise.resolve(
      requests.map((r) =>
        parseSection(
          next.listBytes.subarray(r.offset, r.offset + r.length),
          r.node,
          r.level,
          r.endsArtifact,
          index,
        ),
      ),
    );
  });
  return { ...result, asked };
}

const v1 = counterBytes(4 * 1024 * 1024, 1);

describe('planChunkDelta (docs/UPDATER.md §9)', () => {
  it('tiles the artifact exactly, each chunk once, in order', async () => {
    const next = build(v1);
    const { ops, fetchBytes, reuseBytes } = await plan(next, {});
    let at = 0;
    for (const op of ops) {
      expect(op.offset).toBe(at);
      at += op.length;
    }
    expect(at).toBe(v1.length);
    expect(fetchBytes + reuseBytes).toBe(v1.length);
  });

  it('fetches everything (and every section) when nothing is held', async () => {
    const next = build(v1);
    const { fetchBytes, sectionBytes } = await plan(next, {});
    expect(fetchBytes).toBe(v1.length);
    expect(sectionBytes).toBe(next.listBytes.length);
  });

  it('fetches no section and no chunk when the same artifact is held', async () => {
    const next = build(v1);
    const { fetchBytes, asked } = await plan(next, { old: build(v1) });
    expect(fetchBytes).toBe(0);
    expect(asked).toEqual([]);
  });

  it('reuses nearly all chunks after an insertion near the start', async () => {
    const shifted = concat(v1.subarray(0, 100_000), counterBytes(65_536, 9), v1.subarray(100_000));
    const { fetchBytes, reuseBytes, sectionBytes } = await plan(build(shifted), {
      old: build(v1),
    });
    expect(reuseBytes).toBeGreaterThan(shifted.length - 200_000);
    expect(fetchBytes).toBeLessThan(65_536 + 4 * 64 * 1024);
    expect(sectionBytes).toBeLessThan(8 * 1024);
  });

  it('fetches only the chunks an in-place edit touched', async () => {
    const edited = Uint8Array.from(v1);
    edited.set(counterBytes(4096, 5), 2_000_000);
    const { ops, fetchBytes } = await plan(build(edited), { old: build(v1) });
    const fetched = ops.filter((op) => op.kind === 'fetch');
    expect(fetched.length).toBeGreaterThanOrEqual(1);
    expect(fetched.length).toBeLessThanOrEqual(3);
    for (const op of fetched) {
      expect(op.offset).toBeLessThan(2_000_000 + 4096 + 64 * 1024);
      expect(op.offset + op.length).toBeGreaterThan(2_000_000 - 64 * 1024);
    }
    expect(fetchBytes).toBeLessThan(3 * 64 * 1024);
  });

  it('reuses chunks across artifacts: a new file made of two held files', async () => {
    const a = counterBytes(1_500_000, 21);
    const b = counterBytes(1_500_000, 22);
    const { fetchBytes, ops } = await plan(build(concat(a, b)), { a: build(a), b: build(b) });
    const from = new Set(ops.flatMap((op) => (op.kind === 'local' ? [op.from.blob] : [])));
    expect(from).toEqual(new Set(['a', 'b']));
    expect(fetchBytes).toBeLessThan(3 * 64 * 1024);
  });

  it('fetches a chunk repeated inside the new artifact only once', async () => {
    const zeros = new Uint8Array(1_000_000);
    const { ops, fetchBytes } = await plan(build(concat(counterBytes(100_000, 3), zeros)), {});
    const repeats = ops.filter((op) => op.kind === 'repeat');
    expect(repeats.length).toBeGreaterThan(10);
    expect(fetchBytes).toBeLessThan(100_000 + 3 * 64 * 1024);
  });

  it('plans a one-level index with no section request at all', async () => {
    const small = counterBytes(200_000, 4);
    const { asked, fetchBytes } = await plan(build(small), {});
    expect(asked).toEqual([]);
    expect(fetchBytes).toBe(small.length);
  });

  it('treats an empty local index as nothing held', () => {
    expect(NO_LOCAL_CHUNKS.chunk(new Uint8Array(32))).toBeUndefined();
    expect(NO_LOCAL_CHUNKS.subtree(1, new Uint8Array(32))).toBeUndefined();
  });
});
