/** Closing a normal window (no tray): minimise to the background, or quit (launch-mode.ts). */
import { describe, expect, it } from 'vitest';
import { closeAction } from '#main/launch-mode.js';
import { attachWindowLifecycle } from '#main/window-lifecycle.js';

function setup(minimiseToBackground: boolean, style: 'tray' | 'normal' = 'normal') {
  const calls: string[] = [];
  let close: ((event: { preventDefault(): void }) => void) | undefined;
  const win = {
    on: (name: string, listener: (event: { preventDefault(): void }) => void) => {
      if (name === 'close') close = listener;
    },
    hide: () => calls.push('hide'),
    minimize: () => calls.push('minimise'),
    isDestroyed: () => false,
    loadURL: () => Promise.resolve(),
    webContents: { on: () => undefined, reload: () => undefined },
  };
  attachWindowLifecycle(win, {
    isQuitting: () => false,
    nowMs: () => 0,
    log: () => undefined,
    entryUrl: 'app://renderer/index.html',
    closeAction: () => closeAction(style, minimiseToBackground),
    quit: () => calls.push('quit'),
  });
  return {
    calls,
    close: () => {
      let prevented = false;
      close?.({ preventDefault: () => (prevented = true) });
      return prevented;
    },
  };
}

describe('closing the window per launch style', () => {
  it('minimises a normal window and keeps the app running', () => {
    const s = setup(true);
    expect(s.close()).toBe(true);
    expect(s.calls).toEqual(['minimise']);
  });

  it('quits through the app when minimise-to-background is off', () => {
    const s = setup(false);
    expect(s.close()).toBe(true);
    expect(s.calls).toEqual(['quit']);
  });

  it('still hides the tray window', () => {
    const s = setup(false, 'tray');
    s.close();
    expect(s.calls).toEqual(['hide']);
  });
});
