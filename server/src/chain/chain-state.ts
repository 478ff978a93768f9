/**
 * The chain's in-memory state: machines, per-unit counts and the cached rankings, read against
 * the injected clock. It knows nothing of HTTP or of the simulator.
 */
import type { ActivityResponse } from '#protocol';
import { MAX_LIMIT } from '#protocol';
import { ChainError } from './chain-error.js';
import type { TransitionInput } from './dev-input.js';
import { MAX_TRANSITIONS_PER_CALL } from './dev-input.js';
import type { MachineInput } from './machine-registry.js';
import { MachineRegistry, MAX_MACHINES } from './machine-registry.js';
import type { CachedBody } from './ranking-cache.js';
import { RankingCache } from './ranking-cache.js';
import { RETAINED_UNITS } from './activity-query.js';
import { UnitClock } from './time-units.js';
import { UnitRing } from './unit-ring.js';
import { WindowRanker } from './window-ranking.js';
import { windowSeries } from './window-series.js';

export interface ChainStateOptions {
  readonly retainedUnits?: number;
  readonly maxMachines?: number;
  readonly genesisMs?: number;
}

export interface MachineResult {
  readonly id: string;
  readonly name: string;
  readonly visibility: 'public' | 'private';
  readonly created: boolean;
}

export interface TransitionResult {
  readonly machine_id: string;
  readonly unit: number;
  readonly count: number;
}

export class ChainState {
  readonly units: UnitClock;
  readonly registry: MachineRegistry;
  readonly retainedUnits: number;
  readonly #ring: UnitRing;
  readonly #ranker: WindowRanker;
  readonly #cache = new RankingCache();
  /** Bumped when a completed unit changes, which only the dev and in-process APIs can do. */
  #pastWrites = 0;

  constructor(nowMs: () => number, options: ChainStateOptions = {}) {
    this.retainedUnits = options.retainedUnits ?? RETAINED_UNITS;
    this.units = new UnitClock(nowMs, options.genesisMs);
    this.registry = new MachineRegistry(options.maxMachines ?? MAX_MACHINES);
    // One slot per retained completed unit, plus the current unit that is still filling.
    this.#ring = new UnitRing(this.retainedUnits + 1);
    this.#ranker = new WindowRanker(this.#ring, this.registry, this.retainedUnits);
  }

  get recomputes(): number {
    return this.#cache.recomputes;
  }

  /** Window moves done by deltas vs rebuilt from the ring (benchmarks and tests). */
  get windowMoves(): { readonly incremental: number; readonly rebuilt: number } {
    return this.#ranker.moves;
  }

  /** Adds or updates a machine (see MachineRegistry.upsert). */
  addMachine(input: MachineInput): MachineResult {
    const { index, created } = this.registry.upsert(input);
    return {
      id: this.registry.idAt(index),
      name: this.registry.nameAt(index),
      visibility: this.registry.visibilityAt(index),
      created,
    };
  }

  /**
   * Records `count` transitions of a known machine in `unit` (default: the current unit). Units
   * in the future, or older than the retained range, are refused: they could never be counted.
   */
  addTransitions(input: TransitionInput): TransitionResult {
    const index = this.registry.indexOf(input.machine_id);
    if (index === undefined)
      throw new ChainError('UNKNOWN_MACHINE', 'no machine with this machine_id');
    if (!Number.isInteger(input.count) || input.count < 1 || input.count > MAX_TRANSITIONS_PER_CALL)
      throw new ChainError(
        'INVALID_COUNT',
        `count must be an integer from 1 to ${MAX_TRANSITIONS_PER_CALL}`,
      );
    const current = this.units.current();
    const unit = input.unit ?? current;
    if (!Number.isSafeInteger(unit))
      throw new ChainError('INVALID_UNIT', 'unit must be an integer');
    if (unit > current)
      throw new ChainError('UNIT_IN_FUTURE', `unit ${unit} is after the current unit ${current}`);
    if (unit < current - this.retainedUnits)
      throw new ChainError(
        'UNIT_TOO_OLD',
        `unit ${unit} is older than the retained range (${current - this.retainedUnits}..${current})`,
      );
    this.#ring.add(index, unit, input.count);
    if (unit < current) this.#pastWrites++;
    return {
      machine_id: input.machine_id,
      unit,
      count: input.count,
    };
  }

  /**
   * Fast path for the simulator: machine index and unit are trusted (unit >= the current unit
   * at the last read, so cached rankings stay valid).
   */
  addTrusted(index: number, unit: number, count: number): void {
    this.#ring.add(index, unit, count);
  }

  /**
   * The cached response for already-clamped (window, limit), as of the last completed unit;
   * with `series`, each machine's per-bucket series too (docs/PROTOCOL.md §5).
   */
  body(window: number, limit: number, series = false): CachedBody {
    const asOf = this.units.lastCompleted();
    return this.#cache.get(
      asOf,
      // Both counters only grow, so their sum changes whenever either does (no string per call).
      this.registry.generation + this.#pastWrites,
      window,
      limit,
      (w) => this.#ranker.top(asOf, Math.min(w, this.retainedUnits), MAX_LIMIT, this.#pastWrites),
      () => new Date(this.units.now()).toISOString(),
      series
        ? (w, top) =>
            windowSeries(
              this.#ring,
              asOf,
              Math.min(w, this.retainedUnits),
              top.map((m) => this.registry.indexOf(m.id) ?? -1),
            )
        : undefined,
    );
  }

  /** The ranking as an object (in-process API). */
  ranking(window: number, limit: number, series = false): ActivityResponse {
    return this.body(window, limit, series).response;
  }

  clear(): void {
    this.registry.clear();
    this.#ring.clear();
    this.#cache.clear();
    this.#ranker.clear();
    this.#pastWrites++;
  }
}
