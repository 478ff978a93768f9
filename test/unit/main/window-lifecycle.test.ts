import { describe, expect, it } from 'vitest';
import { attachWindowLifecycle, type LifecycleWindow } from '#main/window-lifecycle.js';

type Listener = (...args: unknown[]) => void;

function fakeWindow() {
  const win = {
    handlers: new Map<string, Listener>(),
    contentsHandlers: new Map<string, Listener>(),
    hidden: 0,
    reloads: 0,
    destroyed: false,
    on(event: string, listener: Listener) {
      win.handlers.set(event, listener);
    },
    hide() {
      win.hidden += 1;
    },
    isDestroyed: () => win.destroyed,
    webContents: {
      on(event: string, listener: Listener) {
        win.contentsHandlers.set(event, listener);
      },
      reload() {
        win.reloads += 1;
      },
    },
  };
  return win;
}

function setup(quitting = false) {
  const win = fakeWindow();
  const lines: string[] = [];
  let now = 1_000_000;
  const state = { quitting };
  attachWindowLifecycle(win as unknown as LifecycleWindow, {
    isQuitting: () => state.quitting,
    nowMs: () => now,
    log: (level, message) => lines.push(`${level} ${message}`),
  });
  return {
    win,
    lines,
    state,
    advance: (ms: number) => {
      now += ms;
    },
    gone: (reason: string) =>
      win.contentsHandlers.get('render-process-gone')?.({}, { reason, exitCode: 9 }),
    failLoad: (code: number, isMainFrame = true) =>
      win.contentsHandlers.get('did-fail-load')?.({}, code, 'ERR', 'app://renderer/', isMainFrame),
  };
}

describe('window lifecycle', () => {
  it('close hides the window instead of destroying it', () => {
    const { win } = setup();
    let prevented = 0;
    win.handlers.get('close')?.({ preventDefault: () => (prevented += 1) });
    expect(prevented).toBe(1);
    expect(win.hidden).toBe(1);
  });

  it('close while quitting lets the window close', () => {
    const { win } = setup(true);
    let prevented = 0;
    win.handlers.get('close')?.({ preventDefault: () => (prevented += 1) });
    expect(prevented).toBe(0);
    expect(win.hidden).toBe(0);
  });

  it('render-process-gone reloads the page and logs why', () => {
    const { win, lines, gone } = setup();
    gone('crashed');
    expect(win.reloads).toBe(1);
    expect(lines).toEqual([
      'warn window: renderer gone (crashed, exit code 9); reloading (1 of 3)',
    ]);
  });

  it('reloads at most 3 times a minute, then logs that it gives up', () => {
    const { win, lines, gone, advance } = setup();
    for (let i = 0; i < 5; i += 1) gone('oom');
    expect(win.reloads).toBe(3);
    expect(lines.at(-1)).toBe(
      'error window: renderer gone (oom, exit code 9); not reloading again (3 reloads in 60 s)',
    );
    advance(60_001); // the budget is a sliding minute
    gone('oom');
    expect(win.reloads).toBe(4);
  });

  it('a clean exit (the window closing on quit) is logged, not reloaded', () => {
    const { win, lines, gone } = setup();
    gone('clean-exit');
    expect(win.reloads).toBe(0);
    expect(lines).toEqual(['info window: renderer exited (clean-exit)']);
  });

  it('did-fail-load of the page reloads it within the same budget', () => {
    const { win, lines, failLoad } = setup();
    failLoad(-6);
    expect(win.reloads).toBe(1);
    expect(lines[0]).toMatch(/^warn window: page failed to load \(-6 ERR\) at app:\/\/renderer\//);
  });

  it('did-fail-load of a subframe or an aborted load is ignored', () => {
    const { win, failLoad } = setup();
    failLoad(-6, false);
    failLoad(-3);
    expect(win.reloads).toBe(0);
  });

  it('never reloads a destroyed window', () => {
    const { win, gone } = setup();
    win.destroyed = true;
    gone('crashed');
    expect(win.reloads).toBe(0);
  });
});
