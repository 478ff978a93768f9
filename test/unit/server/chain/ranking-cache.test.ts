import { describe, expect, it } from 'vitest';
import { MAX_CACHED_BODIES, RankingCache } from '#server/chain/ranking-cache.js';
import type { RankedMachine } from '#server/chain/window-ranking.js';

const top: RankedMachine[] = [
  { id: 'a', name: 'A', transitions: 3 },
  { id: 'b', name: 'B', transitions: 2 },
  { id: 'c', name: 'C', transitions: 1 },
];

function counting() {
  const calls: number[] = [];
  const compute = (window: number) => {
    calls.push(window);
    return top;
  };
  return { calls, compute };
}
const iso = () => '2026-01-01T00:00:00.000Z';

describe('ranking cache', () => {
  it('computes a window once per stamp and serves every limit from it', () => {
    const cache = new RankingCache();
    const { calls, compute } = counting();
    const one = cache.get(5, 0, 60, 1, compute, iso);
    const three = cache.get(5, 0, 60, 3, compute, iso);
    expect(calls).toEqual([60]);
    expect(one.response.machines.map((m) => m.id)).toEqual(['a']);
    expect(three.response.machines.map((m) => [m.rank, m.id])).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
    ]);
    expect(cache.get(5, 0, 60, 3, compute, iso)).toBe(three);
    expect(cache.recomputes).toBe(1);
  });

  it('recomputes when the unit or the data version changes', () => {
    const cache = new RankingCache();
    const { calls, compute } = counting();
    cache.get(5, 0, 60, 10, compute, iso);
    cache.get(6, 0, 60, 10, compute, iso);
    cache.get(6, 1, 60, 10, compute, iso);
    expect(calls).toEqual([60, 60, 60]);
  });

  it('serializes exactly the bytes of the response object, with their length', () => {
    const body = new RankingCache().get(7, 0, 2, 2, counting().compute, iso);
    expect(JSON.parse(body.bytes.toString('utf8'))).toEqual(body.response);
    expect(body.headers['content-length']).toBe(String(body.bytes.length));
    expect(body.headers['access-control-allow-origin']).toBe('*');
    expect(body.response).toMatchObject({
      as_of_unit: 7,
      window: 2,
      limit: 2,
      generated_at: iso(),
    });
  });

  it('counts Content-Length in bytes, not characters', () => {
    const body = new RankingCache().get(
      1,
      0,
      1,
      1,
      () => [{ id: 'x', name: 'Ünïcødé ✓', transitions: 1 }],
      iso,
    );
    expect(Number(body.contentLength)).toBe(Buffer.byteLength(body.bytes.toString('utf8')));
    expect(Number(body.contentLength)).toBeGreaterThan(body.bytes.toString('utf8').length);
  });

  it('keeps a bounded number of bodies', () => {
    const cache = new RankingCache();
    const { compute } = counting();
    const first = cache.get(1, 0, 1, 1, compute, iso);
    for (let w = 1; w <= 10; w++)
      for (let l = 1; l <= 100; l++) cache.get(1, 0, w, l, compute, iso);
    expect(10 * 100).toBeGreaterThan(MAX_CACHED_BODIES);
    // The oldest body was evicted: asking again builds a new one (equal bytes, new object).
    const again = cache.get(1, 0, 1, 1, compute, iso);
    expect(again).not.toBe(first);
    expect(again.bytes.equals(first.bytes)).toBe(true);
  });
});
