import { describe, expect, it } from 'vitest';
import { AbortLane, linkedAbort } from '#core/transfer/linked-abort.js';

describe('linkedAbort', () => {
  it('aborts with its parent until disposed, then lets go of it', () => {
    const parent = new AbortController();
    const first = linkedAbort(parent.signal);
    const second = linkedAbort(parent.signal);
    second.dispose();
    parent.abort();
    expect(first.signal.aborted).toBe(true);
    expect(second.signal.aborted).toBe(false);
  });
});

describe('AbortLane', () => {
  it('hands the same link to request after request while none aborted it', () => {
    const lane = new AbortLane(new AbortController().signal);
    const link = lane.take();
    expect(lane.take()).toBe(link);
  });

  it('gives a fresh link after one was aborted (a stall), still tied to the parent', () => {
    const parent = new AbortController();
    const lane = new AbortLane(parent.signal);
    const stalled = lane.take();
    stalled.abort();
    const next = lane.take();
    expect(next).not.toBe(stalled);
    expect(next.signal.aborted).toBe(false);
    parent.abort();
    expect(next.signal.aborted).toBe(true);
  });

  it('once disposed, no longer follows the parent', () => {
    const parent = new AbortController();
    const lane = new AbortLane(parent.signal);
    const link = lane.take();
    lane.dispose();
    parent.abort();
    expect(link.signal.aborted).toBe(false);
  });
});
