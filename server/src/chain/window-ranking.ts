/**
 * Computes the top public machines of one window from its running per-machine totals, keeping
 * the best `k` with a bounded heap. Ordering (docs/PROTOCOL.md §5): transitions descending, ties
 * by id ascending (UTF-16 code-unit order, which equals byte order for our ASCII ids); machines
 * with no transition, and private machines, are never candidates (so they never take a slot).
 */
import type { MachineRegistry } from './machine-registry.js';
import { RunningWindow } from './running-window.js';
import { selectTop } from './top-k.js';
import type { UnitRing } from './unit-ring.js';

export interface RankedMachine {
  readonly id: string;
  readonly name: string;
  readonly transitions: number;
}

/** Running windows kept at once (each holds 8 bytes per machine); least recently used goes. */
export const MAX_RUNNING_WINDOWS = 8;

export class WindowRanker {
  readonly #windows = new Map<number, RunningWindow>();
  #candidates = new Uint32Array(0);
  /** How many moves were incremental / rebuilt (benchmarks and tests). */
  readonly moves = { incremental: 0, rebuilt: 0 };

  constructor(
    private readonly ring: UnitRing,
    private readonly registry: MachineRegistry,
    private readonly retainedUnits: number,
  ) {}

  /**
   * Ranks units `asOfUnit - window + 1 .. asOfUnit` of data version `version` and returns at
   * most `k` machines, best first.
   */
  top(asOfUnit: number, window: number, k: number, version: number): RankedMachine[] {
    const registry = this.registry;
    const machineCount = registry.size;
    const running = this.#running(window);
    if (running.moveTo(asOfUnit, version, machineCount)) this.moves.incremental++;
    else this.moves.rebuilt++;
    const totals = running.totals;

    if (this.#candidates.length < machineCount) this.#candidates = new Uint32Array(machineCount);
    const candidates = this.#candidates;
    let n = 0;
    for (let m = 0; m < machineCount; m++) {
      if ((totals[m] ?? 0) > 0 && !registry.isPrivate(m)) candidates[n++] = m;
    }
    const better = (a: number, b: number): boolean => {
      const ta = totals[a] ?? 0;
      const tb = totals[b] ?? 0;
      if (ta !== tb) return ta > tb;
      return registry.idAt(a) < registry.idAt(b);
    };
    return selectTop(candidates, n, k, better).map((m) => ({
      id: registry.idAt(m),
      name: registry.nameAt(m),
      transitions: totals[m] ?? 0,
    }));
  }

  clear(): void {
    this.#windows.clear();
    this.#candidates = new Uint32Array(0);
  }

  #running(window: number): RunningWindow {
    let running = this.#windows.get(window);
    if (running !== undefined) {
      // Map order is the LRU order: move this window to the end.
      this.#windows.delete(window);
    } else {
      running = new RunningWindow(window, this.ring, this.retainedUnits);
      if (this.#windows.size >= MAX_RUNNING_WINDOWS) {
        const oldest = this.#windows.keys().next();
        if (oldest.done !== true) this.#windows.delete(oldest.value);
      }
    }
    this.#windows.set(window, running);
    return running;
  }
}
