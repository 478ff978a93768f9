import { describe, expect, it } from 'vitest';
import { createRendererRecovery } from '#app/renderer-recovery.js';

function setup(options: { maxReloads?: number; windowMs?: number } = {}) {
  let now = 5_000;
  const recovery = createRendererRecovery({ nowMs: () => now, ...options });
  return {
    recovery,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('renderer recovery', () => {
  it('reloads 3 times, counting the attempts, then gives up', () => {
    const { recovery } = setup();
    expect(recovery.failed()).toEqual({ action: 'reload', attempt: 1, maxReloads: 3 });
    expect(recovery.failed()).toEqual({ action: 'reload', attempt: 2, maxReloads: 3 });
    expect(recovery.failed()).toEqual({ action: 'reload', attempt: 3, maxReloads: 3 });
    expect(recovery.gaveUp()).toBe(false);
    expect(recovery.failed()).toEqual({ action: 'give-up', maxReloads: 3, windowMs: 60_000 });
    expect(recovery.gaveUp()).toBe(true);
  });

  it('forgets reloads older than the window (a sliding window, not a fixed one)', () => {
    const { recovery, advance } = setup();
    recovery.failed();
    advance(30_000);
    recovery.failed();
    recovery.failed();
    advance(30_000); // the first reload is now exactly 60 s old: out of the window
    expect(recovery.failed()).toEqual({ action: 'reload', attempt: 3, maxReloads: 3 });
    expect(recovery.failed().action).toBe('give-up');
  });

  it('after giving up it waits, and offers the gave-up page again only after a full window', () => {
    const { recovery, advance } = setup();
    for (let i = 0; i < 4; i += 1) recovery.failed();
    expect(recovery.failed()).toEqual({ action: 'wait' });
    advance(59_999);
    expect(recovery.failed()).toEqual({ action: 'wait' });
    advance(1);
    expect(recovery.failed().action).toBe('give-up');
    expect(recovery.failed()).toEqual({ action: 'wait' });
  });

  it('reset (the Reload button) gives a fresh budget', () => {
    const { recovery } = setup();
    for (let i = 0; i < 4; i += 1) recovery.failed();
    recovery.reset();
    expect(recovery.gaveUp()).toBe(false);
    expect(recovery.failed()).toEqual({ action: 'reload', attempt: 1, maxReloads: 3 });
  });

  it('honours a custom budget', () => {
    const { recovery, advance } = setup({ maxReloads: 1, windowMs: 1_000 });
    expect(recovery.failed().action).toBe('reload');
    expect(recovery.failed()).toEqual({ action: 'give-up', maxReloads: 1, windowMs: 1_000 });
    advance(999);
    expect(recovery.failed().action).toBe('wait');
  });

  it('with no reloads allowed it gives up at the first failure', () => {
    const { recovery } = setup({ maxReloads: 0 });
    expect(recovery.failed().action).toBe('give-up');
  });
});
