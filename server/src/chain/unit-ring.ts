/**
 * A ring buffer of per-unit transition counts. Slot `u mod size` holds unit `u` as a compact list
 * of (machine index, count) entries; a slot is recycled when a newer unit claims it, so memory is
 * bounded by the retained units (docs/CHAIN.md §Ingest). Ingest is O(1) amortized: a machine's
 * repeated transitions in the same unit add to its last entry, and a full slot is coalesced before
 * it may grow, so one slot never holds more than about twice as many entries as there are machines.
 */

/** One unit's entries. Arrays are allocated on the first write and grow by doubling. */
class UnitSlot {
  unit = Number.NaN;
  length = 0;
  machines: Uint32Array = new Uint32Array(0);
  counts: Float64Array = new Float64Array(0);
}

const INITIAL_SLOT_ENTRIES = 16;

export class UnitRing {
  readonly #slots: UnitSlot[];
  /** Unit and position of each machine's most recent entry, for in-place coalescing. */
  #lastUnit = new Float64Array(0);
  #lastPos = new Uint32Array(0);
  /** Scratch for coalescing a slot: one cell per machine, always left zeroed. */
  #scratch = new Float64Array(0);

  /** @param size number of slots: the retained completed units plus the current one. */
  constructor(readonly size: number) {
    if (!Number.isSafeInteger(size) || size < 1) throw new RangeError('ring size must be >= 1');
    this.#slots = Array.from({ length: size }, () => new UnitSlot());
  }

  /**
   * Adds `count` transitions of machine `machine` to unit `unit`. The caller checks that the unit
   * is inside the retained range; a slot holding an older unit is recycled here.
   */
  add(machine: number, unit: number, count: number): void {
    this.#ensureMachine(machine);
    const slot = this.#slotFor(unit);
    if (slot.unit !== unit) {
      slot.unit = unit;
      slot.length = 0;
    }
    const pos = this.#lastPos[machine] ?? 0;
    if (this.#lastUnit[machine] === unit && pos < slot.length && slot.machines[pos] === machine) {
      slot.counts[pos] = (slot.counts[pos] ?? 0) + count;
      return;
    }
    if (slot.length === slot.machines.length) this.#makeRoom(slot);
    const at = slot.length++;
    slot.machines[at] = machine;
    slot.counts[at] = count;
    this.#lastUnit[machine] = unit;
    this.#lastPos[machine] = at;
  }

  /**
   * Calls `visit(machine, count)` for every entry of unit `unit` (a machine may appear more than
   * once; counts add up). Nothing is visited when the unit is no longer (or not yet) retained.
   */
  forEachEntry(unit: number, visit: (machine: number, count: number) => void): void {
    const slot = this.#slotFor(unit);
    if (slot.unit !== unit) return;
    const { machines, counts, length } = slot;
    for (let i = 0; i < length; i++) visit(machines[i] ?? 0, counts[i] ?? 0);
  }

  /** The entries of unit `unit` as raw arrays (length 0 if not retained), for hot loops. */
  entries(unit: number): { machines: Uint32Array; counts: Float64Array; length: number } {
    const slot = this.#slotFor(unit);
    if (slot.unit !== unit) return { machines: slot.machines, counts: slot.counts, length: 0 };
    return slot;
  }

  /** Total transitions of one machine in one unit (tests and the dev API's answer). */
  countOf(machine: number, unit: number): number {
    let total = 0;
    this.forEachEntry(unit, (m, c) => {
      if (m === machine) total += c;
    });
    return total;
  }

  clear(): void {
    for (const slot of this.#slots) {
      slot.unit = Number.NaN;
      slot.length = 0;
      slot.machines = new Uint32Array(0);
      slot.counts = new Float64Array(0);
    }
    this.#lastUnit = new Float64Array(0);
    this.#lastPos = new Uint32Array(0);
    this.#scratch = new Float64Array(0);
  }

  #slotFor(unit: number): UnitSlot {
    const slot = this.#slots[((unit % this.size) + this.size) % this.size];
    if (slot === undefined) throw new RangeError('unit index out of range');
    return slot;
  }

  #ensureMachine(machine: number): void {
    if (machine < this.#lastUnit.length) return;
    let capacity = Math.max(1024, this.#lastUnit.length);
    while (capacity <= machine) capacity *= 2;
    const lastUnit = new Float64Array(capacity).fill(Number.NaN);
    lastUnit.set(this.#lastUnit);
    const lastPos = new Uint32Array(capacity);
    lastPos.set(this.#lastPos);
    this.#lastUnit = lastUnit;
    this.#lastPos = lastPos;
  }

  /** Coalesces a full slot when that frees half of it, otherwise doubles its arrays. */
  #makeRoom(slot: UnitSlot): void {
    if (slot.length >= INITIAL_SLOT_ENTRIES) {
      this.#coalesce(slot);
      if (slot.length <= slot.machines.length / 2) return;
    }
    const capacity = Math.max(INITIAL_SLOT_ENTRIES, slot.machines.length * 2);
    const machines = new Uint32Array(capacity);
    machines.set(slot.machines.subarray(0, slot.length));
    const counts = new Float64Array(capacity);
    counts.set(slot.counts.subarray(0, slot.length));
    slot.machines = machines;
    slot.counts = counts;
  }

  /** Merges duplicate machines of one slot into single entries, keeping first-seen order. */
  #coalesce(slot: UnitSlot): void {
    if (this.#scratch.length < this.#lastUnit.length)
      this.#scratch = new Float64Array(this.#lastUnit.length);
    const scratch = this.#scratch;
    const { machines, counts } = slot;
    let out = 0;
    for (let i = 0; i < slot.length; i++) {
      const m = machines[i] ?? 0;
      if (scratch[m] === 0) {
        machines[out] = m;
        out++;
      }
      scratch[m] = (scratch[m] ?? 0) + (counts[i] ?? 0);
    }
    for (let i = 0; i < out; i++) {
      const m = machines[i] ?? 0;
      counts[i] = scratch[m] ?? 0;
      scratch[m] = 0;
      this.#lastUnit[m] = slot.unit;
      this.#lastPos[m] = i;
    }
    slot.length = out;
  }
}
