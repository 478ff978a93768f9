import { describe, expect, it } from 'vitest';
import { StallWatch } from '#core/transfer/stall-watch.js';
import { FakeTime } from '#test/fakes.js';

function watch(time: FakeTime, minBytesPerS = 1024) {
  const stalls: string[] = [];
  const w = new StallWatch({
    clock: time,
    timers: time,
    stallTimeoutMs: 3000,
    minBytesPerS,
    throughputWindowMs: 10_000,
    onStall: (reason) => stalls.push(reason),
  });
  return { w, stalls };
}

describe('StallWatch', () => {
  it('fires when no byte arrives for the idle timeout', () => {
    const time = new FakeTime();
    const { stalls } = watch(time);
    time.advance(2999);
    expect(stalls).toHaveLength(0);
    time.advance(1);
    expect(stalls).toHaveLength(1);
    expect(stalls[0]).toMatch(/no data/);
  });

  it('does not fire while bytes keep arriving fast enough', () => {
    const time = new FakeTime();
    const { w, stalls } = watch(time);
    for (let i = 0; i < 300; i++) {
      time.advance(100);
      w.bytes(1024);
    }
    expect(stalls).toEqual([]);
    w.stop();
  });

  it('detects a drip feed that defeats the idle timeout (below minBytesPerS over the window)', () => {
    const time = new FakeTime();
    const { w, stalls } = watch(time);
    for (let i = 0; i < 20 && stalls.length === 0; i++) {
      time.advance(1000);
      w.bytes(10);
    }
    expect(stalls).toHaveLength(1);
    expect(stalls[0]).toMatch(/below 1024 B\/s/);
  });

  it('judges throughput only once a whole window has passed', () => {
    const time = new FakeTime();
    const { w, stalls } = watch(time);
    for (let i = 0; i < 9; i++) {
      time.advance(1000);
      w.bytes(10);
    }
    expect(stalls).toEqual([]);
    w.stop();
  });

  it('with minBytesPerS 0 only the idle rule applies', () => {
    const time = new FakeTime();
    const { w, stalls } = watch(time, 0);
    for (let i = 0; i < 30; i++) {
      time.advance(1000);
      w.bytes(1);
    }
    expect(stalls).toEqual([]);
    w.stop();
  });

  it('fires once and leaves no timer behind after stop()', () => {
    const time = new FakeTime();
    const { w, stalls } = watch(time);
    time.advance(10_000);
    expect(stalls).toHaveLength(1);
    w.stop();
    expect(time.timerCount).toBe(0);
  });

  it('watches on the same timers share one timer, cleared when the last one stops', () => {
    const time = new FakeTime();
    const first = watch(time);
    time.advance(500);
    const second = watch(time);
    expect(time.timerCount).toBe(1);
    first.w.stop();
    expect(time.timerCount).toBe(1);
    second.w.stop();
    expect(time.timerCount).toBe(0);
  });

  it('a watch that joins between ticks still fires within one tick of its idle timeout', () => {
    const time = new FakeTime();
    const early = watch(time);
    time.advance(500);
    const late = watch(time);
    early.w.stop();
    time.advance(2999);
    expect(late.stalls).toEqual([]);
    time.advance(1000);
    expect(late.stalls).toHaveLength(1);
    expect(early.stalls).toEqual([]);
  });
});
