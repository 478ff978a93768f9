/**
 * docs/PROTOCOL.md §5, `series=1`: on random machines and transitions, each ranked machine's
 * series equals a brute-force count per bucket (buckets found by their definition, not by the
 * code's formula), sums to its transitions, has min(window, 60) points, and leaves the ranking
 * itself unchanged; without the parameter no series is sent.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChainState } from '#server/chain/chain-state.js';
import { unitStartMs } from '#server/chain/time-units.js';
import { chainScenarioArb, playScenario } from '#test/chain-scenario.js';
import { bucketOf, seriesPoints } from '#server/chain/window-series.js';
import { SERIES_MAX_POINTS } from '#protocol';

const CURRENT_UNIT = 20_000;
const RETAINED = 150;

/** Bucket of `offset` by the definition: point i covers floor(i*W/P) .. floor((i+1)*W/P) - 1. */
function bucketByDefinition(offset: number, window: number): number {
  const points = Math.min(window, SERIES_MAX_POINTS);
  for (let i = 0; i < points; i++) {
    const from = Math.floor((i * window) / points);
    const to = Math.floor(((i + 1) * window) / points) - 1;
    if (offset >= from && offset <= to) return i;
  }
  throw new Error(`offset ${offset} in no bucket of window ${window}`);
}

describe('window series buckets', () => {
  it('cover every unit of the window once, in order, at most 60 points differing by one unit', () => {
    for (const window of [1, 2, 59, 60, 61, 90, 119, 120, 121, 1000, 3600]) {
      const points = seriesPoints(window);
      expect(points).toBe(Math.min(window, 60));
      const sizes = new Array<number>(points).fill(0);
      let last = 0;
      for (let offset = 0; offset < window; offset++) {
        const bucket = bucketOf(offset, window);
        expect(bucket).toBe(bucketByDefinition(offset, window));
        expect(bucket).toBeGreaterThanOrEqual(last);
        last = bucket;
        sizes[bucket] = (sizes[bucket] ?? 0) + 1;
      }
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      expect(Math.min(...sizes)).toBeGreaterThanOrEqual(1);
    }
  });
});

const scenarioArb = chainScenarioArb({
  retainedUnits: RETAINED,
  idPattern: /^[a-z0-9]{1,4}$/,
  maxMachines: 20,
  maxTransitions: 200,
});

describe('window series property (docs/PROTOCOL.md §5)', () => {
  it('equals a brute-force count per bucket, for random windows, limits and later reads', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const { state, clock, log } = playScenario(s, CURRENT_UNIT, RETAINED);
        for (const current of [CURRENT_UNIT, CURRENT_UNIT + s.laterUnits]) {
          clock.now = Math.ceil(unitStartMs(current));
          const asOf = current - 1;
          const first = asOf - s.window + 1;
          const plain = state.ranking(s.window, s.limit);
          const withSeries = state.ranking(s.window, s.limit, true);
          // The ranking is the same; only the series is added.
          expect(withSeries.machines.map(({ series: _s, ...m }) => m)).toEqual(plain.machines);
          expect(plain.machines.every((m) => m.series === undefined)).toBe(true);
          for (const m of withSeries.machines) {
            const expected = new Array<number>(Math.min(s.window, 60)).fill(0);
            for (const e of log) {
              if (e.id !== m.id || e.unit > asOf || e.unit < first) continue;
              if (e.unit < current - RETAINED) continue; // recycled out of the ring
              const b = bucketByDefinition(e.unit - first, s.window);
              expected[b] = (expected[b] ?? 0) + e.count;
            }
            expect(m.series).toEqual(expected);
            expect(expected.reduce((a, b) => a + b, 0)).toBe(m.transitions);
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  it('is computed once per window and stamp, and served as the same bytes', () => {
    const clock = { now: Math.ceil(unitStartMs(CURRENT_UNIT)) };
    const state = new ChainState(() => clock.now, { retainedUnits: RETAINED });
    state.addMachine({ id: 'a', name: 'A', visibility: 'public' });
    state.addTransitions({ machine_id: 'a', count: 3, unit: CURRENT_UNIT - 2 });
    const first = state.body(60, 10, true);
    expect(state.body(60, 10, true).bytes).toBe(first.bytes);
    expect(state.body(60, 10, false).bytes).not.toBe(first.bytes);
    expect(state.recomputes).toBe(1);
    const series = first.response.machines[0]?.series ?? [];
    expect(series).toHaveLength(60);
    expect(series[58]).toBe(3);
  });
});
