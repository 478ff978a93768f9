import { describe, expect, it } from 'vitest';
import {
  parseActivityQuery,
  parseBoundedInt,
  RETAINED_UNITS,
} from '#server/chain/activity-query.js';

describe('GET /api/chain/active query (docs/PROTOCOL.md §5)', () => {
  it('defaults: window 60, limit 10', () => {
    expect(parseActivityQuery({})).toEqual({ window: 60, limit: 10, series: false });
    expect(parseActivityQuery(undefined)).toEqual({ window: 60, limit: 10, series: false });
  });

  it('retains at least 3,600 units', () => {
    expect(RETAINED_UNITS).toBeGreaterThanOrEqual(3600);
  });

  it('accepts decimal values inside the bounds', () => {
    expect(parseActivityQuery({ window: '120', limit: '25' })).toEqual({
      window: 120,
      limit: 25,
      series: false,
    });
  });

  it('clamps limit to 1..100', () => {
    expect(parseActivityQuery({ limit: '0' }).limit).toBe(1);
    expect(parseActivityQuery({ limit: '101' }).limit).toBe(100);
    expect(parseActivityQuery({ limit: '999999999' }).limit).toBe(100);
  });

  it('clamps window to 1..retained units', () => {
    expect(parseActivityQuery({ window: '0' }).window).toBe(1);
    expect(parseActivityQuery({ window: '3601' }).window).toBe(3600);
    expect(parseActivityQuery({ window: '50' }, 40).window).toBe(40);
  });

  it('accepts leading zeros as decimal', () => {
    expect(parseActivityQuery({ limit: '007' }).limit).toBe(7);
  });

  it.each([
    ['empty', ''],
    ['negative', '-5'],
    ['signed', '+5'],
    ['fractional', '5.5'],
    ['exponent', '1e2'],
    ['hex', '0x10'],
    ['spaces', ' 5'],
    ['words', 'ten'],
    ['huge (over 15 digits)', '1234567890123456'],
    ['Infinity', 'Infinity'],
  ])('falls back to the default for an unparsable value: %s', (_label, raw) => {
    expect(parseActivityQuery({ limit: raw, window: raw })).toEqual({
      window: 60,
      limit: 10,
      series: false,
    });
  });

  it('falls back to the default for repeated parameters (arrays)', () => {
    expect(parseActivityQuery({ limit: ['5', '6'], window: ['1'] })).toEqual({
      window: 60,
      limit: 10,
      series: false,
    });
  });

  it('series only for exactly series=1 (docs/PROTOCOL.md §5)', () => {
    expect(parseActivityQuery({ series: '1' }).series).toBe(true);
    for (const raw of ['', '0', 'true', 'yes', '01', ' 1', ['1', '1'], undefined]) {
      expect(parseActivityQuery({ series: raw }).series).toBe(false);
    }
  });

  it('ignores inherited properties', () => {
    const query = Object.create({ limit: '5' }) as Record<string, unknown>;
    expect(parseActivityQuery(query).limit).toBe(10);
  });

  it('parseBoundedInt never returns a value outside its bounds', () => {
    for (const raw of ['0', '1', '50', '100', '101', '999999999999999'])
      expect(parseBoundedInt(raw, 10, 1, 100)).toBeGreaterThanOrEqual(1);
    expect(parseBoundedInt('999999999999999', 10, 1, 100)).toBe(100);
  });
});
