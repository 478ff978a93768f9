import { describe, expect, it } from 'vitest';
import { barPercent, formatBytes, relativeTime } from '../../../src/renderer/format.js';

const NOW = 1_000_000_000;

describe('window formatting', () => {
  it('says "never" / "not scheduled" for a missing time', () => {
    expect(relativeTime(null, NOW, 'never')).toBe('never');
  });

  it('writes past and future times relative to now', () => {
    expect(relativeTime(NOW - 3_000, NOW, 'never')).toBe('just now');
    expect(relativeTime(NOW - 45_000, NOW, 'never')).toBe('45 s ago');
    expect(relativeTime(NOW + 5 * 60_000, NOW, 'never')).toBe('in 5 min');
    expect(relativeTime(NOW - 2 * 3_600_000, NOW, 'never')).toBe('2 h ago');
    expect(relativeTime(NOW + 3 * 86_400_000, NOW, 'never')).toBe('in 3 d');
  });

  it('picks the unit after rounding (no "60 min", no "24 h")', () => {
    expect(relativeTime(NOW + 3_599_000, NOW, 'never')).toBe('in 1 h');
    expect(relativeTime(NOW - 59.6 * 60_000, NOW, 'never')).toBe('1 h ago');
    expect(relativeTime(NOW + 23.7 * 3_600_000, NOW, 'never')).toBe('in 1 d');
  });

  it('formats bytes in binary units', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5.0 MiB');
  });

  it('draws bars proportional to the leader, never empty for a non-zero count', () => {
    expect(barPercent(50, 100)).toBe(50);
    expect(barPercent(100, 100)).toBe(100);
    expect(barPercent(1, 1000)).toBe(2);
    expect(barPercent(0, 100)).toBe(0);
    expect(barPercent(5, 0)).toBe(0);
  });
});
