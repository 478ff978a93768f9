/**
 * Per-machine activity series over one window (docs/PROTOCOL.md §5, `series=1`): for each ranked
 * machine, its transitions in at most SERIES_MAX_POINTS consecutive buckets of whole units,
 * oldest first, whose sum is the machine's count in the window. Computed from the unit ring for
 * the ranked machines only (at most 100), once per window and stamp (ranking-cache.ts).
 */
import { SERIES_MAX_POINTS } from '#protocol';
import type { UnitRing } from './unit-ring.js';

/**
 * The bucket of each unit offset: a window of `window` units has min(window, SERIES_MAX_POINTS)
 * points, and point i covers offsets floor(i * window / points) .. floor((i + 1) * window /
 * points) - 1 (offset 0 = the oldest unit of the window). Buckets differ by at most one unit.
 */
export function seriesPoints(window: number): number {
  return Math.min(window, SERIES_MAX_POINTS);
}

/** The bucket holding unit offset `offset` (0 = oldest) of a window of `window` units. */
export function bucketOf(offset: number, window: number): number {
  const points = seriesPoints(window);
  // The largest i with floor(i * window / points) <= offset.
  return Math.floor(((offset + 1) * points - 1) / window);
}

/**
 * Series of the machines at registry indexes `machines` (ranking order) over units
 * `asOfUnit - window + 1 .. asOfUnit`. Cost: one pass over the window's ring entries.
 */
export function windowSeries(
  ring: UnitRing,
  asOfUnit: number,
  window: number,
  machines: readonly number[],
): number[][] {
  const points = seriesPoints(window);
  const series = machines.map(() => new Array<number>(points).fill(0));
  const row = new Map<number, number>();
  machines.forEach((machine, i) => row.set(machine, i));
  if (row.size === 0) return series;
  const first = asOfUnit - window + 1;
  for (let offset = 0; offset < window; offset++) {
    const { machines: ids, counts, length } = ring.entries(first + offset);
    if (length === 0) continue;
    const bucket = bucketOf(offset, window);
    for (let e = 0; e < length; e++) {
      const at = row.get(ids[e] ?? -1);
      if (at === undefined) continue;
      const line = series[at];
      if (line !== undefined) line[bucket] = (line[bucket] ?? 0) + (counts[e] ?? 0);
    }
  }
  return series;
}
