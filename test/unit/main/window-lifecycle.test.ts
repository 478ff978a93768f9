import { describe, expect, it } from 'vitest';
import { GAVE_UP_MESSAGE, gaveUpUrl, RECOVERY_ORIGIN } from '#app/gave-up-page.js';
import { attachWindowLifecycle, type LifecycleWindow } from '#main/window-lifecycle.js';

type Listener = (...args: unknown[]) => void;

const ENTRY = 'app://renderer/index.html';

function fakeWindow() {
  const win = {
    handlers: new Map<string, Listener>(),
    contentsHandlers: new Map<string, Listener>(),
    hidden: 0,
    reloads: 0,
    loaded: [] as string[],
    destroyed: false,
    on(event: string, listener: Listener) {
      win.handlers.set(event, listener);
    },
    hide() {
      win.hidden += 1;
    },
    isDestroyed: () => win.destroyed,
    loadURL(url: string) {
      win.loaded.push(url);
      return Promise.resolve();
    },
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
    entryUrl: ENTRY,
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
    /** A navigation of the page; returns whether it was cancelled. */
    navigate: (url: string) => {
      let prevented = false;
      win.contentsHandlers.get('will-navigate')?.({
        url,
        preventDefault: () => (prevented = true),
      });
      return prevented;
    },
  };
}

function decodedPage(url: string | undefined): string {
  return decodeURIComponent((url ?? '').split(',')[1] ?? '');
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
    expect(win.loaded).toEqual([]);
    expect(lines).toEqual([
      'warn window: renderer gone (crashed, exit code 9); reloading (1 of 3)',
    ]);
  });

  it('after 3 reloads in a minute it shows the gave-up page instead of a blank window', () => {
    const { win, lines, gone } = setup();
    for (let i = 0; i < 4; i += 1) gone('oom');
    expect(win.reloads).toBe(3);
    expect(win.loaded).toEqual([gaveUpUrl()]);
    expect(decodedPage(win.loaded[0])).toContain(GAVE_UP_MESSAGE);
    expect(lines.at(-1)).toBe(
      'error window: renderer gone (oom, exit code 9); not reloading again (3 reloads in 60 s); showing the gave-up page',
    );
  });

  it('the reload budget is a sliding minute', () => {
    const { win, gone, advance } = setup();
    for (let i = 0; i < 3; i += 1) gone('oom');
    advance(60_001);
    gone('oom');
    expect(win.reloads).toBe(4);
    expect(win.loaded).toEqual([]);
  });

  it('a failing gave-up page is shown again at most once a minute, never reloaded', () => {
    const { win, lines, gone, advance } = setup();
    for (let i = 0; i < 4; i += 1) gone('oom');
    gone('oom');
    expect(win.loaded).toHaveLength(1);
    expect(win.reloads).toBe(3);
    expect(lines.at(-1)).toMatch(/waiting for Reload$/);
    advance(60_000);
    gone('oom');
    expect(win.loaded).toEqual([gaveUpUrl(), gaveUpUrl()]);
  });

  it("the gave-up page's Reload loads the window again on a fresh budget", () => {
    const { win, lines, gone, navigate } = setup();
    for (let i = 0; i < 4; i += 1) gone('crashed');
    expect(navigate(`${RECOVERY_ORIGIN}/reload?`)).toBe(true);
    expect(win.loaded).toEqual([gaveUpUrl(), ENTRY]);
    expect(lines.at(-1)).toBe(
      'info window: Reload pressed on the gave-up page; loading the window again',
    );
    // Fresh budget: three more reloads before giving up again.
    for (let i = 0; i < 3; i += 1) gone('crashed');
    expect(win.reloads).toBe(6);
    expect(win.loaded).toHaveLength(2);
    gone('crashed');
    expect(win.loaded.at(-1)).toBe(gaveUpUrl());
  });

  it('a Reload navigation while the window has not given up is cancelled and ignored', () => {
    const { win, navigate } = setup();
    expect(navigate(`${RECOVERY_ORIGIN}/reload?`)).toBe(true);
    expect(win.loaded).toEqual([]);
  });

  it('any other navigation from the gave-up page is cancelled and ignored', () => {
    const { win, gone, navigate } = setup();
    for (let i = 0; i < 4; i += 1) gone('crashed');
    expect(navigate('https://evil.example/reload')).toBe(true);
    expect(navigate(`${RECOVERY_ORIGIN}/elsewhere`)).toBe(true);
    expect(win.loaded).toEqual([gaveUpUrl()]);
  });

  it('a clean exit (the window closing on quit) is logged, not reloaded', () => {
    const { win, lines, gone } = setup();
    gone('clean-exit');
    expect(win.reloads).toBe(0);
    expect(lines).toEqual(['info window: renderer exited (clean-exit)']);
  });

  it('did-fail-load of the page reloads it within the same budget', () => {
    const { win, lines, failLoad, gone } = setup();
    failLoad(-6);
    expect(win.reloads).toBe(1);
    expect(lines[0]).toMatch(/^warn window: page failed to load \(-6 ERR\) at app:\/\/renderer\//);
    for (let i = 0; i < 2; i += 1) gone('crashed');
    failLoad(-6);
    expect(win.loaded).toEqual([gaveUpUrl()]);
  });

  it('did-fail-load of a subframe or an aborted load is ignored', () => {
    const { win, failLoad } = setup();
    failLoad(-6, false);
    failLoad(-3);
    expect(win.reloads).toBe(0);
  });

  it('never reloads or loads into a destroyed window', () => {
    const { win, gone } = setup();
    win.destroyed = true;
    for (let i = 0; i < 4; i += 1) gone('crashed');
    expect(win.reloads).toBe(0);
    expect(win.loaded).toEqual([]);
  });
});
