/**
 * Time units of the network (docs/PROTOCOL.md §5, Time unit): one unit lasts 47,000/60 ms, and the index of the
 * unit holding instant `t` is floor((t - genesis) / unit). The arithmetic is done in integers
 * (t * 60 / 47,000) so that a boundary instant never lands in the wrong unit through rounding.
 */
import { UNIT_MS } from '#protocol';

/** Genesis of unit 0: the Unix epoch, so unit indices do not depend on when the server started. */
export const GENESIS_MS = 0;

/** Units per `UNIT_NUMERATOR_MS` milliseconds: UNIT_MS = UNIT_NUMERATOR_MS / UNITS_PER_NUMERATOR. */
const UNIT_NUMERATOR_MS = 47_000;
const UNITS_PER_NUMERATOR = 60;

/** Index of the unit that holds instant `nowMs` (may be negative before genesis). */
export function unitAt(nowMs: number, genesisMs: number = GENESIS_MS): number {
  return Math.floor(((nowMs - genesisMs) * UNITS_PER_NUMERATOR) / UNIT_NUMERATOR_MS);
}

/** First millisecond instant (possibly fractional) of unit `unit`. */
export function unitStartMs(unit: number, genesisMs: number = GENESIS_MS): number {
  return genesisMs + (unit * UNIT_NUMERATOR_MS) / UNITS_PER_NUMERATOR;
}

/** Reads the unit index from an injected clock. */
export class UnitClock {
  constructor(
    private readonly nowMs: () => number,
    readonly genesisMs: number = GENESIS_MS,
  ) {}

  /** The current (incomplete) unit. */
  current(): number {
    return unitAt(this.nowMs(), this.genesisMs);
  }

  /** The last completed unit: the `as_of_unit` of a ranking computed now. */
  lastCompleted(): number {
    return this.current() - 1;
  }

  now(): number {
    return this.nowMs();
  }
}

export { UNIT_MS };
