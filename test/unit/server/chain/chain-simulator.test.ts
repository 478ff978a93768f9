import { afterEach, describe, expect, it } from 'vitest';
import { ChainSimulator, PRIVATE_SHARE } from '#server/chain/chain-simulator.js';
import { ChainState } from '#server/chain/chain-state.js';
import { unitStartMs } from '#server/chain/time-units.js';
import { chainHarness, type ChainHarness } from '#test/chain-context.js';

function simulated(seed: number, machines = 1000, startUnit = 5000) {
  const clock = { now: Math.ceil(unitStartMs(startUnit)) };
  const state = new ChainState(() => clock.now);
  const sim = new ChainSimulator(state, { seed, machines });
  sim.start();
  return { clock, state, sim };
}

let h: ChainHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('chain simulator (docs/CHAIN.md §Simulator)', () => {
  it('creates the requested population, about 20% of it private', () => {
    const { state } = simulated(1);
    expect(state.registry.size).toBe(1000);
    let privateCount = 0;
    for (let i = 0; i < state.registry.size; i++) if (state.registry.isPrivate(i)) privateCount++;
    expect(privateCount / 1000).toBeGreaterThan(PRIVATE_SHARE - 0.05);
    expect(privateCount / 1000).toBeLessThan(PRIVATE_SHARE + 0.05);
  });

  it('back-fills the default window, so the ranking is populated at once', () => {
    const { state } = simulated(1);
    const ranking = state.ranking(60, 10);
    expect(ranking.machines).toHaveLength(10);
    for (const m of ranking.machines)
      expect(state.registry.isPrivate(state.registry.indexOf(m.id) ?? -1)).toBe(false);
  });

  it('is deterministic for a seed: same seed, same ranking', () => {
    const a = simulated(42).state.body(60, 100).bytes.toString();
    const b = simulated(42).state.body(60, 100).bytes.toString();
    expect(a).toBe(b);
  });

  it('differs between seeds', () => {
    const a = simulated(42).state.ranking(60, 100).machines;
    const b = simulated(43).state.ranking(60, 100).machines;
    expect(a).not.toEqual(b);
  });

  it('activity is heavy-tailed: the top 20% of machines make most transitions', () => {
    const { sim } = simulated(9);
    const totals = new Float64Array(1000);
    for (let unit = 0; unit < 200; unit++)
      sim.countsFor(unit).forEach((c, i) => (totals[i] = (totals[i] ?? 0) + c));
    const sorted = [...totals].sort((x, y) => y - x);
    const all = sorted.reduce((x, y) => x + y, 0);
    const top = sorted.slice(0, 200).reduce((x, y) => x + y, 0);
    expect(all).toBeGreaterThan(0);
    expect(top / all).toBeGreaterThan(0.5);
  });

  it('catches up the units elapsed when the clock jumps, with the same counts as ticking each unit', () => {
    const ticked = simulated(5);
    for (let unit = 5001; unit <= 5030; unit++) {
      ticked.clock.now = Math.ceil(unitStartMs(unit));
      ticked.sim.catchUp();
    }
    const jumped = simulated(5);
    jumped.clock.now = Math.ceil(unitStartMs(5030));
    jumped.sim.catchUp();
    expect(jumped.state.body(90, 100).bytes.toString()).toBe(
      ticked.state.body(90, 100).bytes.toString(),
    );
  });

  it('a clock jump far beyond the retained range is bounded and leaves a full recent window', () => {
    const { clock, state, sim } = simulated(5);
    clock.now = Math.ceil(unitStartMs(5000 + 1_000_000));
    sim.catchUp();
    expect(state.ranking(60, 10).machines.length).toBeGreaterThan(0);
  });

  it('runs inside the module when simulate is on, driven lazily by requests', async () => {
    h = await chainHarness({ simulate: true, simulateMachines: 200, seed: 3 });
    const before = h.api.ranking(1, 100);
    h.clock.advance(10 * 784);
    const after = h.api.ranking(1, 100);
    expect(after.as_of_unit).toBe(before.as_of_unit + 10);
    expect(after.machines.length).toBeGreaterThan(0);
  });

  it('describes itself for the first stdout line', async () => {
    h = await chainHarness({ simulate: true, simulateMachines: 20, seed: 11 });
    expect(h.module.describe?.()).toEqual({
      chain_simulate: true,
      chain_simulated_machines: 20,
      chain_seed: 11,
    });
  });

  it('starts without it when simulate is off', async () => {
    h = await chainHarness({ simulate: false });
    h.clock.advance(10 * 784);
    expect(h.api.ranking(3600, 100).machines).toEqual([]);
  });

  it('reset() restarts the simulated population', async () => {
    h = await chainHarness({ simulate: true, simulateMachines: 50, seed: 3 });
    h.api.addMachine({ id: 'extra', name: 'Extra', visibility: 'public' });
    const before = h.api.ranking(60, 100);
    await h.module.reset();
    expect(h.api.ranking(60, 100).machines).toEqual(before.machines);
    expect(() => h?.api.addTransitions({ machine_id: 'extra', count: 1 })).toThrow(/no machine/);
  });
});
