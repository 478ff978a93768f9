/**
 * The seeded network simulator (docs/CHAIN.md §Simulator): a population of machines, about 20% private,
 * with heavy-tailed (Pareto) activity rates, emitting transitions for each unit. A unit's counts
 * are a pure function of (seed, unit), so the result does not depend on when ticks arrive: the
 * simulator is driven lazily (catchUp() before every read, and from an unref'd timer), fills in
 * the units elapsed since it last ran, and so follows POST /api/dev/clock without real sleeping.
 */
import type { ChainState } from './chain-state.js';
import { mixSeed, mulberry32 } from './seeded-prng.js';

export const PRIVATE_SHARE = 0.2;
/** Pareto shape 1.16 is the classic 80/20 split; scale gives ~0.35 transitions/unit on average. */
const PARETO_ALPHA = 1.16;
const PARETO_SCALE = 0.05;
const MAX_RATE_PER_UNIT = 200;
/** Units pre-filled at start so the default window (60) is populated at once. */
export const BACKFILL_UNITS = 60;
/** Bound of one catch-up, in machine-units, so a huge clock jump costs at most a few tens of ms. */
export const MAX_MACHINE_UNITS_PER_CATCH_UP = 2_000_000;

const ADJECTIVES = ['amber', 'brisk', 'cobalt', 'dusky', 'ember', 'frost', 'gilded', 'hollow'];
const NOUNS = ['falcon', 'harbor', 'lantern', 'meadow', 'orbit', 'quarry', 'summit', 'willow'];

export interface SimulatorOptions {
  readonly seed: number;
  readonly machines: number;
}

export class ChainSimulator {
  #indices = new Uint32Array(0);
  #rates = new Float64Array(0);
  #lastUnit = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly state: ChainState,
    readonly options: SimulatorOptions,
  ) {}

  /** Number of simulated machines (the option, capped by the registry's limit). */
  get population(): number {
    return this.#indices.length;
  }

  /** Registers the population and back-fills the default window. Idempotent after reset(). */
  start(): void {
    const count = Math.max(0, Math.min(this.options.machines, this.state.registry.maxMachines));
    const rng = mulberry32(mixSeed(this.options.seed, -1));
    this.#indices = new Uint32Array(count);
    this.#rates = new Float64Array(count);
    const width = Math.max(5, String(count).length);
    for (let i = 0; i < count; i++) {
      const isPrivate = rng() < PRIVATE_SHARE;
      const rate = PARETO_SCALE / Math.pow(1 - rng(), 1 / PARETO_ALPHA);
      const adjective = ADJECTIVES[Math.floor(rng() * ADJECTIVES.length)] ?? 'amber';
      const noun = NOUNS[Math.floor(rng() * NOUNS.length)] ?? 'falcon';
      const id = `sim-${String(i).padStart(width, '0')}`;
      const { index } = this.state.registry.upsert({
        id,
        name: `${adjective} ${noun} ${i}`,
        visibility: isPrivate ? 'private' : 'public',
      });
      this.#indices[i] = index;
      this.#rates[i] = Math.min(rate, MAX_RATE_PER_UNIT);
    }
    this.#lastUnit = this.state.units.current() - 1 - BACKFILL_UNITS;
    this.catchUp();
  }

  /** Emits the units elapsed since the last call, up to the current one (bounded per call). */
  catchUp(): void {
    const current = this.state.units.current();
    if (current <= this.#lastUnit) return;
    const population = Math.max(1, this.#indices.length);
    const budgetUnits = Math.max(1, Math.floor(MAX_MACHINE_UNITS_PER_CATCH_UP / population));
    // Older units would fall out of the ring anyway; beyond the budget they stay empty.
    const from = Math.max(
      this.#lastUnit + 1,
      current - this.state.retainedUnits,
      current - budgetUnits + 1,
    );
    for (let unit = from; unit <= current; unit++) this.#emit(unit);
    this.#lastUnit = current;
  }

  /** Transitions of simulated machine `i` in `unit` (what #emit records), for tests. */
  countsFor(unit: number): Float64Array {
    const out = new Float64Array(this.#indices.length);
    const rng = mulberry32(mixSeed(this.options.seed, unit));
    for (let i = 0; i < out.length; i++) {
      const rate = this.#rates[i] ?? 0;
      // Mean-preserving jitter, then stochastic rounding: E[count] = rate.
      out[i] = Math.floor(rate * (0.5 + rng()) + rng());
    }
    return out;
  }

  #emit(unit: number): void {
    const counts = this.countsFor(unit);
    for (let i = 0; i < counts.length; i++) {
      const c = counts[i] ?? 0;
      if (c > 0) this.state.addTrusted(this.#indices[i] ?? 0, unit, c);
    }
  }
}
