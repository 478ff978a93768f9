import { describe, expect, it } from 'vitest';
import { ChainState } from '#server/chain/chain-state.js';
import { unitStartMs } from '#server/chain/time-units.js';
import { refusal } from '#test/chain-context.js';

/** A state on a manual clock that starts at the first instant of unit 1000. */
function setup(retainedUnits?: number) {
  const clock = { now: Math.ceil(unitStartMs(1000)) };
  const state = new ChainState(
    () => clock.now,
    retainedUnits === undefined ? {} : { retainedUnits },
  );
  const toUnit = (unit: number) => {
    clock.now = Math.ceil(unitStartMs(unit));
  };
  return { clock, state, toUnit };
}

const pub = (id: string) => ({ id, name: `name of ${id}`, visibility: 'public' as const });
const ids = (state: ChainState, window = 60, limit = 10) =>
  state.ranking(window, limit).machines.map((m) => `${m.id}:${m.transitions}`);

describe('chain state: counting window (docs/PROTOCOL.md §5)', () => {
  it('does not count a transition in the current, incomplete unit until that unit completes', () => {
    const { state, toUnit } = setup();
    state.addMachine(pub('a'));
    state.addTransitions({ machine_id: 'a', count: 3 });
    expect(state.ranking(60, 10).machines).toEqual([]);
    expect(state.ranking(60, 10).as_of_unit).toBe(999);
    toUnit(1001);
    expect(state.ranking(60, 10).as_of_unit).toBe(1000);
    expect(ids(state)).toEqual(['a:3']);
  });

  it('a unit leaves the window once `window` newer units have completed', () => {
    const { state, toUnit } = setup();
    state.addMachine(pub('a'));
    state.addTransitions({ machine_id: 'a', count: 1 });
    toUnit(1001);
    expect(ids(state, 1)).toEqual(['a:1']);
    toUnit(1002);
    expect(ids(state, 1)).toEqual([]);
    expect(ids(state, 2)).toEqual(['a:1']);
    toUnit(1060);
    expect(ids(state, 60)).toEqual(['a:1']);
    toUnit(1061);
    expect(ids(state, 60)).toEqual([]);
  });

  it('moves with the clock: the last millisecond of a unit is still that unit', () => {
    const { clock, state } = setup();
    state.addMachine(pub('a'));
    state.addTransitions({ machine_id: 'a', count: 2 });
    clock.now = Math.ceil(unitStartMs(1001)) - 1;
    expect(state.units.current()).toBe(1000);
    expect(ids(state)).toEqual([]);
    clock.now += 1;
    expect(ids(state)).toEqual(['a:2']);
  });

  it('never lists a private machine, even the most active one', () => {
    const { state, toUnit } = setup();
    state.addMachine(pub('a'));
    state.addMachine({ id: 'p', name: 'secret', visibility: 'private' });
    state.addTransitions({ machine_id: 'a', count: 1 });
    state.addTransitions({ machine_id: 'p', count: 100 });
    toUnit(1001);
    const body = state.body(60, 10);
    expect(ids(state)).toEqual(['a:1']);
    expect(body.bytes.toString()).not.toContain('secret');
  });

  it('a private machine does not take a slot of the limit', () => {
    const { state, toUnit } = setup();
    state.addMachine({ id: 'p', name: 'P', visibility: 'private' });
    state.addMachine(pub('a'));
    state.addTransitions({ machine_id: 'p', count: 9 });
    state.addTransitions({ machine_id: 'a', count: 1 });
    toUnit(1001);
    expect(ids(state, 60, 1)).toEqual(['a:1']);
  });

  it('breaks ties by id ascending', () => {
    const { state, toUnit } = setup();
    for (const id of ['m-b', 'm-c', 'm-a', 'z']) state.addMachine(pub(id));
    for (const id of ['m-b', 'm-c', 'm-a']) state.addTransitions({ machine_id: id, count: 4 });
    state.addTransitions({ machine_id: 'z', count: 5 });
    toUnit(1001);
    expect(ids(state)).toEqual(['z:5', 'm-a:4', 'm-b:4', 'm-c:4']);
    expect(state.ranking(60, 10).machines.map((m) => m.rank)).toEqual([1, 2, 3, 4]);
  });

  it('lists only machines with at least one transition, at most `limit` of them', () => {
    const { state, toUnit } = setup();
    for (let i = 0; i < 20; i++) state.addMachine(pub(`m${String(i).padStart(2, '0')}`));
    for (let i = 0; i < 15; i++)
      state.addTransitions({ machine_id: `m${String(i).padStart(2, '0')}`, count: i + 1 });
    toUnit(1001);
    expect(state.ranking(60, 100).machines).toHaveLength(15);
    expect(ids(state, 60, 3)).toEqual(['m14:15', 'm13:14', 'm12:13']);
  });

  it('writes the wire fields of the issue with the response type', () => {
    const { state, toUnit } = setup();
    state.addMachine(pub('a'));
    state.addTransitions({ machine_id: 'a', count: 1 });
    toUnit(1001);
    const parsed = JSON.parse(state.body(5, 3).bytes.toString()) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual([
      'ok',
      'window',
      'limit',
      'unit_ms',
      'as_of_unit',
      'generated_at',
      'machines',
    ]);
    expect(parsed).toMatchObject({
      ok: true,
      window: 5,
      limit: 3,
      unit_ms: 47000 / 60,
      as_of_unit: 1000,
    });
    expect(parsed['generated_at']).toBe(new Date(Math.ceil(unitStartMs(1001))).toISOString());
    expect(parsed['machines']).toEqual([{ rank: 1, id: 'a', name: 'name of a', transitions: 1 }]);
  });
});

describe('chain state: cache (docs/CHAIN.md §Ranking)', () => {
  it('computes a window at most once per unit and serves the same bytes', () => {
    const { state, toUnit } = setup();
    state.addMachine(pub('a'));
    const first = state.body(60, 10);
    state.addTransitions({ machine_id: 'a', count: 1 }); // current unit: not visible yet
    expect(state.body(60, 10).bytes).toBe(first.bytes);
    expect(state.body(60, 5).response.as_of_unit).toBe(999);
    expect(state.recomputes).toBe(1);
    toUnit(1001);
    expect(state.body(60, 10).bytes).not.toBe(first.bytes);
    expect(state.recomputes).toBe(2);
  });

  it('precomputes Content-Type and Content-Length', () => {
    const { state } = setup();
    const body = state.body(60, 10);
    expect(body.contentType).toBe('application/json; charset=utf-8');
    expect(body.contentLength).toBe(String(body.bytes.length));
  });

  it('drops the cache when a machine turns private mid-unit', () => {
    const { state, toUnit } = setup();
    state.addMachine(pub('a'));
    state.addTransitions({ machine_id: 'a', count: 1 });
    toUnit(1001);
    expect(ids(state)).toEqual(['a:1']);
    state.addMachine({ id: 'a', name: 'x', visibility: 'private' });
    expect(ids(state)).toEqual([]);
  });

  it('drops the cache when transitions are added to a completed unit', () => {
    const { state, toUnit } = setup();
    state.addMachine(pub('a'));
    toUnit(1001);
    expect(ids(state)).toEqual([]);
    state.addTransitions({ machine_id: 'a', count: 2, unit: 1000 });
    expect(ids(state)).toEqual(['a:2']);
  });
});

describe('chain state: refusals', () => {
  it('refuses transitions of an unknown machine with UNKNOWN_MACHINE', () => {
    expect(refusal(() => setup().state.addTransitions({ machine_id: 'nope', count: 1 }))).toBe(
      'UNKNOWN_MACHINE',
    );
  });

  it('refuses a unit in the future with UNIT_IN_FUTURE', () => {
    const { state } = setup();
    state.addMachine(pub('a'));
    expect(refusal(() => state.addTransitions({ machine_id: 'a', count: 1, unit: 1001 }))).toBe(
      'UNIT_IN_FUTURE',
    );
  });

  it('refuses a unit older than the retained range with UNIT_TOO_OLD, and accepts the oldest retained', () => {
    const { state } = setup(100);
    state.addMachine(pub('a'));
    expect(refusal(() => state.addTransitions({ machine_id: 'a', count: 1, unit: 899 }))).toBe(
      'UNIT_TOO_OLD',
    );
    expect(state.addTransitions({ machine_id: 'a', count: 1, unit: 900 }).unit).toBe(900);
  });

  it('refuses a count that is not an integer from 1 to 1,000,000 with INVALID_COUNT', () => {
    const { state } = setup();
    state.addMachine(pub('a'));
    for (const count of [0, -1, 1.5, 1_000_001, Number.NaN])
      expect(refusal(() => state.addTransitions({ machine_id: 'a', count }))).toBe('INVALID_COUNT');
  });

  it('a refused call changes nothing', () => {
    const { state, toUnit } = setup();
    state.addMachine(pub('a'));
    expect(refusal(() => state.addTransitions({ machine_id: 'a', count: 1, unit: 1001 }))).toBe(
      'UNIT_IN_FUTURE',
    );
    toUnit(1002);
    expect(ids(state)).toEqual([]);
  });

  it('clear() forgets machines and counts', () => {
    const { state, toUnit } = setup();
    state.addMachine(pub('a'));
    state.addTransitions({ machine_id: 'a', count: 1 });
    state.clear();
    toUnit(1001);
    expect(ids(state)).toEqual([]);
    expect(refusal(() => state.addTransitions({ machine_id: 'a', count: 1 }))).toBe(
      'UNKNOWN_MACHINE',
    );
  });
});
