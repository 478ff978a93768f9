/**
 * Random chain scenarios for the property tests of the ranking and its series
 * (docs/PROTOCOL.md §5): machines (some private), transitions at ages within the retained
 * units, a window, a limit and a later read; and the ChainState they give, with the log of
 * what was recorded for a brute-force count to compare with.
 */
import fc from 'fast-check';
import { ChainState } from '#server/chain/chain-state.js';
import { unitStartMs } from '#server/chain/time-units.js';

export interface ScenarioMachine {
  readonly id: string;
  readonly isPrivate: boolean;
}

export interface ChainScenario {
  readonly machines: readonly ScenarioMachine[];
  readonly transitions: readonly { machine: number; age: number; count: number }[];
  readonly window: number;
  readonly limit: number;
  /** Units after the current one for a second read (ring recycling, the cache stamp). */
  readonly laterUnits: number;
}

export interface ScenarioShape {
  readonly retainedUnits: number;
  readonly idPattern: RegExp;
  readonly maxMachines: number;
  readonly maxTransitions: number;
}

export function chainScenarioArb(shape: ScenarioShape): fc.Arbitrary<ChainScenario> {
  const machine = fc.record({ id: fc.stringMatching(shape.idPattern), isPrivate: fc.boolean() });
  const retained = shape.retainedUnits;
  return fc
    .uniqueArray(machine, { minLength: 1, maxLength: shape.maxMachines, selector: (m) => m.id })
    .chain((machines) =>
      fc.record({
        machines: fc.constant(machines),
        transitions: fc.array(
          fc.record({
            machine: fc.nat(machines.length - 1),
            // Units from the oldest retained one to the current (incomplete) one.
            age: fc.nat(retained),
            count: fc.integer({ min: 1, max: 20 }),
          }),
          { maxLength: shape.maxTransitions },
        ),
        window: fc.integer({ min: 1, max: retained }),
        limit: fc.integer({ min: 1, max: 100 }),
        laterUnits: fc.nat(retained + 5),
      }),
    );
}

export interface PlayedScenario {
  readonly state: ChainState;
  /** The state's clock; move `now` to read at another unit. */
  readonly clock: { now: number };
  /** Every transition recorded, by machine id and unit. */
  readonly log: readonly { id: string; unit: number; count: number }[];
}

/** A ChainState at the start of `currentUnit` holding the scenario's machines and transitions. */
export function playScenario(
  s: ChainScenario,
  currentUnit: number,
  retainedUnits: number,
): PlayedScenario {
  const clock = { now: Math.ceil(unitStartMs(currentUnit)) };
  const state = new ChainState(() => clock.now, { retainedUnits });
  for (const m of s.machines) {
    state.addMachine({
      id: m.id,
      name: `n-${m.id}`,
      visibility: m.isPrivate ? 'private' : 'public',
    });
  }
  const log: { id: string; unit: number; count: number }[] = [];
  for (const t of s.transitions) {
    const id = s.machines[t.machine]?.id ?? '';
    const unit = currentUnit - t.age;
    state.addTransitions({ machine_id: id, count: t.count, unit });
    log.push({ id, unit, count: t.count });
  }
  return { state, clock, log };
}
