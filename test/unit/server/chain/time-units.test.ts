import { describe, expect, it } from 'vitest';
import { UNIT_MS } from '#protocol/activity.js';
import { GENESIS_MS, UnitClock, unitAt, unitStartMs } from '#server/chain/time-units.js';

describe('time units (docs/PROTOCOL.md §5, Time unit)', () => {
  it('a unit lasts 47000/60 ms, so 60 units are 47 s', () => {
    expect(UNIT_MS * 60).toBe(47_000);
  });

  it('unit index is floor((now - genesis) / unit)', () => {
    expect(unitAt(GENESIS_MS)).toBe(0);
    expect(unitAt(783)).toBe(0);
    expect(unitAt(784)).toBe(1);
    expect(unitAt(47_000)).toBe(60);
    expect(unitAt(46_999)).toBe(59);
    expect(unitAt(-1)).toBe(-1);
  });

  it('the first instant of a unit belongs to it, the instant before to the previous unit', () => {
    for (const unit of [1, 59, 60, 61, 2_283_000_123]) {
      const start = unitStartMs(unit);
      expect(unitAt(start)).toBe(unit);
      expect(unitAt(Math.ceil(start) - 1)).toBe(unit - 1);
    }
  });

  it('honours a custom genesis', () => {
    expect(unitAt(10_000 + 47_000, 10_000)).toBe(60);
    expect(unitStartMs(60, 10_000)).toBe(57_000);
  });

  it('UnitClock reads the injected clock: current and last completed unit', () => {
    let now = 47_000;
    const clock = new UnitClock(() => now);
    expect(clock.current()).toBe(60);
    expect(clock.lastCompleted()).toBe(59);
    now += 784;
    expect(clock.current()).toBe(61);
  });
});
