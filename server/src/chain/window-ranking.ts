/**
 * Computes the top public machines of one window: sums the per-unit entries of the `window` most
 * recent completed units into a per-machine scratch array, then keeps the best `k` with a heap.
 * Ordering (issue 4, The endpoint): transitions descending, ties by id ascending (UTF-16 code-unit
 * order, which equals byte order for our ASCII ids); machines with no transition or private are
 * never candidates.
 */
import type { MachineRegistry } from './machine-registry.js';
import { selectTop } from './top-k.js';
import type { UnitRing } from './unit-ring.js';

export interface RankedMachine {
  readonly id: string;
  readonly name: string;
  readonly transitions: number;
}

/** Reusable scratch buffers, sized to the registry; they are left zeroed after each call. */
export class WindowRanker {
  #totals = new Float64Array(0);
  #touched = new Uint32Array(0);

  constructor(
    private readonly ring: UnitRing,
    private readonly registry: MachineRegistry,
  ) {}

  /**
   * Ranks units `asOfUnit - window + 1 .. asOfUnit` and returns at most `k` machines, best first.
   */
  top(asOfUnit: number, window: number, k: number): RankedMachine[] {
    const machineCount = this.registry.size;
    if (this.#totals.length < machineCount) {
      this.#totals = new Float64Array(machineCount);
      this.#touched = new Uint32Array(machineCount);
    }
    const totals = this.#totals;
    const touched = this.#touched;
    let touchedCount = 0;
    for (let unit = asOfUnit - window + 1; unit <= asOfUnit; unit++) {
      const { machines, counts, length } = this.ring.entries(unit);
      for (let i = 0; i < length; i++) {
        const m = machines[i] ?? 0;
        // A machine index beyond the registry can only come from a state cleared under us.
        if (m >= machineCount) continue;
        const before = totals[m] ?? 0;
        if (before === 0) touched[touchedCount++] = m;
        totals[m] = before + (counts[i] ?? 0);
      }
    }
    // Private machines are dropped before selection, so they never take a slot (issue 4).
    let candidates = 0;
    for (let i = 0; i < touchedCount; i++) {
      const m = touched[i] ?? 0;
      if (!this.registry.isPrivate(m)) touched[candidates++] = m;
      else totals[m] = 0;
    }
    const registry = this.registry;
    const better = (a: number, b: number): boolean => {
      const ta = totals[a] ?? 0;
      const tb = totals[b] ?? 0;
      if (ta !== tb) return ta > tb;
      return registry.idAt(a) < registry.idAt(b);
    };
    const best = selectTop(touched, candidates, k, better);
    const result = best.map((m) => ({
      id: registry.idAt(m),
      name: registry.nameAt(m),
      transitions: totals[m] ?? 0,
    }));
    for (let i = 0; i < candidates; i++) totals[touched[i] ?? 0] = 0;
    return result;
  }
}
