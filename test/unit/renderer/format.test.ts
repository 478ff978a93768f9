import { describe, expect, it } from 'vitest';
import {
  barPercent,
  clockTime,
  competitionRanks,
  formatBytes,
  formatCount,
  isolate,
  relativeTime,
  windowWords,
  countColumnCh,
  formatCompact,
  countdown,
} from '#renderer/format.js';

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
    // Never five digits: just under 1 MiB/s reads as MiB.
    expect(formatBytes(1006 * 1024)).toBe('0.98 MiB');
    expect(formatBytes(999 * 1024)).toBe('999.0 KiB');
    expect(formatBytes(1010)).toBe('0.99 KiB');
  });

  it('draws bars proportional to the leader, never empty for a non-zero count', () => {
    expect(barPercent(50, 100)).toBe(50);
    expect(barPercent(100, 100)).toBe(100);
    expect(barPercent(1, 1000)).toBe(2);
    expect(barPercent(0, 100)).toBe(0);
    expect(barPercent(5, 0)).toBe(0);
  });
});

describe('ranking formatting', () => {
  it('writes counts with thousands separators', () => {
    expect(formatCount(1234567, 'en')).toBe('1,234,567');
    expect(formatCount(999, 'en')).toBe('999');
  });

  it('gives the window in units and in seconds from unit_ms', () => {
    expect(windowWords(60, 47_000 / 60)).toBe('state changes per machine, last 60 units ≈ 47 s');
    expect(windowWords(1, 47_000 / 60)).toBe('state changes per machine, last 1 unit ≈ 1 s');
    expect(windowWords(3600, 47_000 / 60)).toBe(
      'state changes per machine, last 3600 units ≈ 47 min',
    );
    // A registry that sends no unit length: units only, no invented seconds.
    expect(windowWords(60, 0)).toBe('state changes per machine, last 60 units');
  });

  it('gives equal counts the same rank and skips the ranks they use up', () => {
    expect(competitionRanks([9, 7, 7, 5, 5, 5, 1])).toEqual([1, 2, 2, 4, 4, 4, 7]);
    expect(competitionRanks([3, 3])).toEqual([1, 1]);
    expect(competitionRanks([])).toEqual([]);
  });

  it('isolates text so a right-to-left override cannot leak out of it', () => {
    expect(isolate('evil\u202Eabc')).toBe('\u2068evil\u202Eabc\u2069');
  });

  it('writes the time of day, or nothing for an unreadable timestamp', () => {
    expect(clockTime('2026-01-02T03:04:05Z', 'en-GB')).toMatch(/^\d{2}:\d{2}:\d{2}$/);
    expect(clockTime('not a time', 'en')).toBe('');
  });
});

describe('compact counts and the countdown', () => {
  it('shows compact counts ("12M") in the system language', () => {
    expect(formatCompact(12_000_000, 'en-US')).toBe('12M');
    expect(formatCompact(1_234, 'en-US')).toBe('1.2K');
    expect(formatCompact(999, 'en-US')).toBe('999');
  });

  it('keeps a compact count to three digits, so it fits its column ("844K", not "843.8K")', () => {
    expect(formatCompact(843_830, 'en-US')).toBe('844K');
    expect(formatCompact(13_500_080, 'en-US')).toBe('13.5M');
    expect(formatCompact(2_062_552, 'en-US')).toBe('2.1M');
    expect(formatCompact(999_949, 'en-US')).toBe('1M');
  });

  it('widens the count column for a locale whose compact counts are longer, never below 5ch', () => {
    expect(countColumnCh([54_000_080, 13_500_000, 843_830, 287], 'en-US')).toBe(5);
    expect(countColumnCh([], 'en-US')).toBe(5);
    // "13,5 Mio." and "844 тыс.": 9 and 8 characters.
    expect(countColumnCh([54_000_080, 13_500_000], 'de-DE')).toBe(9);
    expect(countColumnCh([843_830], 'ru-RU')).toBe(8);
  });

  it('counts the next check down by the second under two minutes', () => {
    expect(countdown(null, 0, 'not scheduled')).toBe('not scheduled');
    expect(countdown(45_000, 0, 'x')).toBe('in 45 s');
    expect(countdown(44_001, 0, 'x')).toBe('in 45 s');
    expect(countdown(0, 1, 'x')).toBe('due now');
    expect(countdown(600_000, 0, 'x')).toBe('in 10 min');
  });
});
