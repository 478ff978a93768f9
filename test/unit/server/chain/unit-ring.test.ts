import { describe, expect, it } from 'vitest';
import { UnitRing } from '#server/chain/unit-ring.js';

function totals(ring: UnitRing, unit: number): Map<number, number> {
  const out = new Map<number, number>();
  ring.forEachEntry(unit, (m, c) => out.set(m, (out.get(m) ?? 0) + c));
  return out;
}

describe('unit ring', () => {
  it('sums transitions per machine and unit', () => {
    const ring = new UnitRing(4);
    ring.add(0, 10, 2);
    ring.add(0, 10, 3);
    ring.add(1, 10, 1);
    ring.add(0, 11, 7);
    expect(totals(ring, 10)).toEqual(
      new Map([
        [0, 5],
        [1, 1],
      ]),
    );
    expect(ring.countOf(0, 11)).toBe(7);
  });

  it('coalesces repeated transitions of a machine in the same unit into one entry', () => {
    const ring = new UnitRing(4);
    for (let i = 0; i < 1000; i++) ring.add(3, 5, 1);
    expect(ring.entries(5).length).toBe(1);
    expect(ring.countOf(3, 5)).toBe(1000);
  });

  it('stays bounded when writes alternate between units (coalescing on growth)', () => {
    const ring = new UnitRing(8);
    for (let i = 0; i < 10_000; i++) {
      ring.add(i % 3, 5, 1);
      ring.add(i % 3, 6, 1);
    }
    expect(ring.entries(5).length).toBeLessThanOrEqual(32);
    expect([...totals(ring, 5).values()].reduce((a, b) => a + b, 0)).toBe(10_000);
    expect(totals(ring, 6).get(0)).toBe(3334);
  });

  it('recycles a slot when a newer unit claims it: the old unit is gone', () => {
    const ring = new UnitRing(3);
    ring.add(0, 1, 5);
    ring.add(0, 4, 2);
    expect(ring.countOf(0, 1)).toBe(0);
    expect(ring.countOf(0, 4)).toBe(2);
  });

  it('handles negative unit indices', () => {
    const ring = new UnitRing(3);
    ring.add(0, -2, 4);
    expect(ring.countOf(0, -2)).toBe(4);
    expect(ring.countOf(0, 1)).toBe(0);
  });

  it('clear() empties every unit', () => {
    const ring = new UnitRing(3);
    ring.add(0, 1, 5);
    ring.clear();
    expect(ring.countOf(0, 1)).toBe(0);
  });
});
