import { describe, expect, it } from 'vitest';
import { MAX_CLOCK_MS, ServerClock } from '#server/platform/clock.js';

const TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000;

describe('ServerClock', () => {
  it('adds every advance to the base time', () => {
    const clock = new ServerClock(() => 1_000);
    clock.advance(500);
    clock.advance(250);
    expect(clock.now()).toBe(1_750);
    expect(clock.offsetMs).toBe(750);
  });

  it('refuses a negative advance', () => {
    const clock = new ServerClock(() => 1_000);
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(clock.now()).toBe(1_000);
  });

  it('stays within four-digit RFC 3339 years however often it is advanced', () => {
    const clock = new ServerClock(() => Date.UTC(2026, 10, 21));
    let refused = 0;
    // 30,000 ten-year steps would reach year 302,026, past what Date can represent.
    for (let i = 0; i < 30_000; i++) {
      try {
        clock.advance(TEN_YEARS_MS);
      } catch (error) {
        expect(error).toBeInstanceOf(RangeError);
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(0);
    expect(clock.now()).toBeLessThanOrEqual(MAX_CLOCK_MS);
    expect(new Date(clock.now()).toISOString()).toMatch(/^\d{4}-/);
  });

  it('refuses an advance past MAX_CLOCK_MS and keeps the time it had', () => {
    const clock = new ServerClock(() => MAX_CLOCK_MS - 10);
    expect(() => clock.advance(11)).toThrow(RangeError);
    expect(clock.now()).toBe(MAX_CLOCK_MS - 10);
    clock.advance(10);
    expect(clock.now()).toBe(MAX_CLOCK_MS);
  });
});
