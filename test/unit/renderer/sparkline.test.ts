import { describe, expect, it } from 'vitest';
import { sparkPoints, SPARK_HEIGHT, SPARK_WIDTH } from '#renderer/sparkline.js';

function parse(points: string): [number, number][] {
  return points.split(' ').map((p) => p.split(',').map(Number) as [number, number]);
}

describe('sparkline points (docs/PROTOCOL.md §5 series)', () => {
  it('spreads the points over the width, the peak at the top and zero at the bottom', () => {
    const pts = parse(sparkPoints([0, 4, 2, 0]));
    expect(pts.map(([x]) => x)).toEqual([0, 20, 40, 60]);
    expect(pts[1]?.[1]).toBe(1.5);
    expect(pts[0]?.[1]).toBe(SPARK_HEIGHT - 1.5);
    expect(pts[2]?.[1]).toBe(8); // half the peak, half way up
    expect(Math.max(...pts.map(([x]) => x))).toBe(SPARK_WIDTH);
  });

  it('draws nothing for no series, a flat line for one point or all zeros', () => {
    expect(sparkPoints([])).toBe('');
    expect(parse(sparkPoints([7]))).toEqual([
      [0, 1.5],
      [60, 1.5],
    ]);
    expect(new Set(parse(sparkPoints([0, 0, 0])).map(([, y]) => y))).toEqual(new Set([14.5]));
  });

  it('keeps a bad value on the baseline instead of drawing outside the box', () => {
    const ys = parse(sparkPoints([Number.NaN, -3, Infinity, 2])).map(([, y]) => y);
    expect(ys.every((y) => y >= 0 && y <= SPARK_HEIGHT)).toBe(true);
  });
});

describe('one scale for every row', () => {
  it('draws a row against the shared peak, not its own', () => {
    const own = sparkPoints([0, 2]);
    const shared = sparkPoints([0, 2], 4);
    // Its own peak reaches the top; on a scale of 4 the same 2 reaches only halfway.
    expect(own.split(' ')[1]).toBe('60,1.5');
    expect(shared.split(' ')[1]).toBe('60,8');
  });
});
