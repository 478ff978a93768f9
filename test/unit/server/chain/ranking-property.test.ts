/**
 * docs/PROTOCOL.md §5 (ordering, privacy, window): on random machines and transitions, the ranking equals a brute-force count for
 * random windows and limits (ties by id ascending, only >= 1 transition, never private).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChainState } from '#server/chain/chain-state.js';
import { unitStartMs } from '#server/chain/time-units.js';
import { chainScenarioArb, playScenario } from '#test/chain-scenario.js';

const CURRENT_UNIT = 10_000;
const RETAINED = 50;

const scenarioArb = chainScenarioArb({
  retainedUnits: RETAINED,
  idPattern: /^[A-Za-z0-9][A-Za-z0-9._:-]{0,5}$/,
  maxMachines: 30,
  maxTransitions: 300,
});

describe('ranking property (docs/PROTOCOL.md §5)', () => {
  it('equals a brute-force count for random machines, transitions, windows and limits', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const { state, clock, log } = playScenario(s, CURRENT_UNIT, RETAINED);
        for (const current of [CURRENT_UNIT, CURRENT_UNIT + s.laterUnits]) {
          clock.now = Math.ceil(unitStartMs(current));
          const asOf = current - 1;
          const retainedFrom = current - RETAINED;
          const window = Math.min(s.window, RETAINED);
          const totals = new Map<string, number>();
          for (const e of log) {
            if (e.unit > asOf || e.unit < asOf - window + 1 || e.unit < retainedFrom) continue;
            totals.set(e.id, (totals.get(e.id) ?? 0) + e.count);
          }
          const expected = s.machines
            .filter((m) => !m.isPrivate && (totals.get(m.id) ?? 0) >= 1)
            .map((m) => ({ id: m.id, transitions: totals.get(m.id) ?? 0 }))
            .sort(
              (a, b) => b.transitions - a.transitions || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
            )
            .slice(0, s.limit)
            .map((m, i) => ({
              rank: i + 1,
              id: m.id,
              name: `n-${m.id}`,
              transitions: m.transitions,
            }));
          const got = state.ranking(s.window, s.limit);
          expect(got.as_of_unit).toBe(asOf);
          expect(got.machines).toEqual(expected);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('stays equal to the brute-force count through interleaved writes, clock moves, visibility changes and cached reads', () => {
    const stepArb = fc.oneof(
      fc.record({
        kind: fc.constant('add' as const),
        machine: fc.nat(7),
        age: fc.nat(RETAINED),
        count: fc.integer({ min: 1, max: 5 }),
      }),
      fc.record({
        kind: fc.constant('tick' as const),
        units: fc.integer({ min: 0, max: 3 }),
        ms: fc.nat(800),
      }),
      fc.record({ kind: fc.constant('flip' as const), machine: fc.nat(7) }),
      fc.record({
        kind: fc.constant('read' as const),
        // Few distinct pairs, so reads often hit the cache.
        window: fc.constantFrom(1, 2, 5, RETAINED, RETAINED + 10),
        limit: fc.constantFrom(1, 3, 10),
      }),
    );
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 80 }), (steps) => {
        let now = Math.ceil(unitStartMs(CURRENT_UNIT));
        const state = new ChainState(() => now, { retainedUnits: RETAINED });
        const machines = Array.from({ length: 8 }, (_, i) => ({
          id: `m${7 - i}`,
          isPrivate: i % 3 === 0,
        }));
        for (const m of machines)
          state.addMachine({
            id: m.id,
            name: m.id,
            visibility: m.isPrivate ? 'private' : 'public',
          });
        const log: { id: string; unit: number; count: number }[] = [];
        for (const step of steps) {
          const current = state.units.current();
          if (step.kind === 'add') {
            const id = machines[step.machine]?.id ?? '';
            state.addTransitions({ machine_id: id, count: step.count, unit: current - step.age });
            log.push({ id, unit: current - step.age, count: step.count });
          } else if (step.kind === 'tick') {
            now += step.units * 784 + step.ms;
          } else if (step.kind === 'flip') {
            const m = machines[step.machine];
            if (m === undefined) continue;
            m.isPrivate = !m.isPrivate;
            state.addMachine({
              id: m.id,
              name: m.id,
              visibility: m.isPrivate ? 'private' : 'public',
            });
          } else {
            const window = Math.min(step.window, RETAINED);
            const asOf = current - 1;
            const totals = new Map<string, number>();
            for (const e of log) {
              if (e.unit > asOf || e.unit <= asOf - window || e.unit < current - RETAINED) continue;
              totals.set(e.id, (totals.get(e.id) ?? 0) + e.count);
            }
            const expected = machines
              .filter((m) => !m.isPrivate && (totals.get(m.id) ?? 0) > 0)
              .map((m) => ({ id: m.id, transitions: totals.get(m.id) ?? 0 }))
              .sort((a, b) => b.transitions - a.transitions || (a.id < b.id ? -1 : 1))
              .slice(0, step.limit);
            const got = state
              .ranking(step.window, step.limit)
              .machines.map((m) => ({ id: m.id, transitions: m.transitions }));
            expect(got).toEqual(expected);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
