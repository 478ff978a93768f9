/**
 * Per-machine totals of one window size, kept current by per-unit deltas (docs/CHAIN.md §Ranking:
 * "per-unit count deltas or a running window sum"). When as_of_unit moves by a few units, the
 * entering units are added and the leaving units subtracted, so a per-unit recompute touches two
 * units' entries instead of the whole window; anything else (first use, a jump, a write into a
 * completed unit, a reset) rebuilds the sum from the ring. Counts are integers, so the sums
 * stay exact.
 */
import type { UnitRing } from './unit-ring.js';

export class RunningWindow {
  #totals = new Float64Array(0);
  #asOf = Number.NaN;
  #version = Number.NaN;

  constructor(
    readonly window: number,
    private readonly ring: UnitRing,
    /** Completed units the ring retains: a leaving unit must still be there to subtract it. */
    private readonly retainedUnits: number,
  ) {}

  /** Totals indexed by machine; valid up to the `machineCount` given to the last moveTo(). */
  get totals(): Float64Array {
    return this.#totals;
  }

  /**
   * Makes the totals cover units `asOf - window + 1 .. asOf` of data version `version`.
   * @returns whether the move was incremental (false: rebuilt).
   */
  moveTo(asOf: number, version: number, machineCount: number): boolean {
    if (this.#totals.length < machineCount) {
      const grown = new Float64Array(Math.max(machineCount, this.#totals.length * 2, 1024));
      grown.set(this.#totals);
      this.#totals = grown;
    }
    const steps = asOf - this.#asOf;
    const incremental =
      version === this.#version &&
      steps >= 0 &&
      // Deltas cost two units per step; past half a window a rebuild is cheaper.
      steps * 2 <= this.window &&
      // The ring keeps units current - retained .. current; the leaving unit must be among them.
      steps <= this.retainedUnits - this.window;
    if (incremental) {
      for (let unit = this.#asOf + 1; unit <= asOf; unit++) {
        this.#addUnit(unit, 1, machineCount);
        this.#addUnit(unit - this.window, -1, machineCount);
      }
    } else {
      this.#totals.fill(0);
      for (let unit = asOf - this.window + 1; unit <= asOf; unit++)
        this.#addUnit(unit, 1, machineCount);
    }
    this.#asOf = asOf;
    this.#version = version;
    return incremental;
  }

  #addUnit(unit: number, sign: 1 | -1, machineCount: number): void {
    const totals = this.#totals;
    const { machines, counts, length } = this.ring.entries(unit);
    for (let i = 0; i < length; i++) {
      const m = machines[i] ?? 0;
      // An index beyond the registry can only come from a state cleared under us.
      if (m < machineCount) totals[m] = (totals[m] ?? 0) + sign * (counts[i] ?? 0);
    }
  }
}
