/**
 * Query parsing for GET /api/chain/active (docs/PROTOCOL.md §5). The interface defines only 200
 * for this route (docs/INTERFACE.md §7 rule 3), so nothing here refuses: a value that is not a plain
 * decimal integer (empty, signed, fractional, over 15 digits, repeated, an array) falls back to
 * the default, and a decimal value outside the bounds is clamped.
 */
import { DEFAULT_LIMIT, DEFAULT_WINDOW_UNITS, MAX_LIMIT } from '#protocol';

/** Completed units kept in memory; also the largest window (docs/PROTOCOL.md §5: 3,600). */
export const RETAINED_UNITS = 3600;

// 15 digits stay below Number.MAX_SAFE_INTEGER, so Number() is exact.
const DECIMAL = /^[0-9]{1,15}$/;

/** Parses one decimal parameter: default when unparsable, else clamped to min..max. */
export function parseBoundedInt(raw: unknown, fallback: number, min: number, max: number): number {
  if (typeof raw !== 'string' || !DECIMAL.test(raw)) return fallback;
  const value = Number(raw);
  return value < min ? min : value > max ? max : value;
}

export interface ActivityQuery {
  readonly window: number;
  readonly limit: number;
  /** `series=1` (exactly): each machine's series too; any other value or none: no series. */
  readonly series: boolean;
}

/**
 * Reads `window` and `limit` from a parsed query object (values may be strings or arrays).
 * @example parseActivityQuery({ limit: '500' }) // { window: 60, limit: 100, series: false }
 */
export function parseActivityQuery(
  query: unknown,
  retainedUnits: number = RETAINED_UNITS,
): ActivityQuery {
  const q = typeof query === 'object' && query !== null ? (query as Record<string, unknown>) : {};
  const own = (key: string): unknown =>
    Object.prototype.hasOwnProperty.call(q, key) ? q[key] : undefined;
  return {
    window: parseBoundedInt(own('window'), DEFAULT_WINDOW_UNITS, 1, retainedUnits),
    limit: parseBoundedInt(own('limit'), DEFAULT_LIMIT, 1, MAX_LIMIT),
    series: own('series') === '1',
  };
}
