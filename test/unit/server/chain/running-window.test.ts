import { describe, expect, it } from 'vitest';
import { RunningWindow } from '#server/chain/running-window.js';
import { UnitRing } from '#server/chain/unit-ring.js';

const RETAINED = 4;
/** A ring like ChainState's: the retained completed units plus the current one. */
const ring = () => new UnitRing(RETAINED + 1);

describe('running window (per-unit deltas)', () => {
  it('moves by one unit with deltas: adds the entering unit, subtracts the leaving one', () => {
    const r = ring();
    r.add(0, 10, 1);
    r.add(0, 11, 2);
    r.add(1, 12, 5);
    const w = new RunningWindow(2, r, RETAINED);
    expect(w.moveTo(11, 0, 2)).toBe(false);
    expect([...w.totals.subarray(0, 2)]).toEqual([3, 0]);
    expect(w.moveTo(12, 0, 2)).toBe(true);
    expect([...w.totals.subarray(0, 2)]).toEqual([2, 5]);
  });

  it('rebuilds when the data version changes', () => {
    const r = ring();
    r.add(0, 10, 1);
    const w = new RunningWindow(2, r, RETAINED);
    w.moveTo(10, 1, 1);
    r.add(0, 10, 4);
    expect(w.moveTo(10, 2, 1)).toBe(false);
    expect(w.totals[0]).toBe(5);
  });

  it('rebuilds when the leaving unit is no longer retained (window = retained units)', () => {
    const r = ring();
    for (let unit = 6; unit <= 9; unit++) r.add(0, unit, 1);
    const w = new RunningWindow(RETAINED, r, RETAINED);
    w.moveTo(9, 0, 1);
    expect(w.totals[0]).toBe(4);
    // Unit 10 completes and unit 11 (current) is written: its slot is the one unit 6 used.
    r.add(0, 10, 1);
    r.add(0, 11, 7);
    expect(w.moveTo(10, 0, 1)).toBe(false);
    expect(w.totals[0]).toBe(4);
  });

  it('rebuilds after a jump of more than half a window', () => {
    const r = ring();
    r.add(0, 10, 1);
    const w = new RunningWindow(2, r, RETAINED);
    w.moveTo(10, 0, 1);
    expect(w.moveTo(12, 0, 1)).toBe(false);
    expect(w.totals[0]).toBe(0);
  });

  it('grows its totals when machines are added', () => {
    const r = ring();
    const w = new RunningWindow(2, r, RETAINED);
    w.moveTo(10, 0, 1);
    r.add(5000, 11, 3);
    w.moveTo(11, 0, 5001);
    expect(w.totals[5000]).toBe(3);
  });
});
