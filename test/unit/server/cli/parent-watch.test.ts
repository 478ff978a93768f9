/**
 * The server stops when npm, which started it, is gone (server/src/cli/parent-watch.ts): the
 * parent pid is polled and a change means we were reparented.
 */
import { describe, expect, it } from 'vitest';
import { PARENT_POLL_MS, startedByNpm, watchParent } from '#server/cli/parent-watch.js';

function fakeTimers() {
  let tick: (() => void) | undefined;
  let unrefed = false;
  return {
    deps: (ppid: () => number) => ({
      ppid,
      setInterval: (fn: () => void, ms: number) => {
        expect(ms).toBe(PARENT_POLL_MS);
        tick = fn;
        return { unref: () => (unrefed = true) };
      },
      clearInterval: () => (tick = undefined),
    }),
    tick: () => tick?.(),
    running: () => tick !== undefined,
    unrefed: () => unrefed,
  };
}

describe('watchParent', () => {
  it('calls back once when the parent pid changes, then stops polling', () => {
    let ppid = 4242;
    let calls = 0;
    const timers = fakeTimers();
    watchParent(
      () => (calls += 1),
      timers.deps(() => ppid),
    );
    timers.tick();
    expect(calls).toBe(0);
    ppid = 1; // reparented to init
    timers.tick();
    expect(calls).toBe(1);
    expect(timers.running()).toBe(false);
  });

  it('never keeps the process alive and can be stopped', () => {
    const timers = fakeTimers();
    const stop = watchParent(
      () => undefined,
      timers.deps(() => 7),
    );
    expect(timers.unrefed()).toBe(true);
    stop();
    expect(timers.running()).toBe(false);
  });
});

describe('startedByNpm', () => {
  it('is true under npm run and npx, false otherwise', () => {
    expect(startedByNpm({ npm_lifecycle_event: 'server' })).toBe(true);
    expect(startedByNpm({ npm_lifecycle_event: 'npx' })).toBe(true);
    expect(startedByNpm({})).toBe(false);
  });
});
