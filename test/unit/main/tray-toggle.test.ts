/**
 * Clicking the tray icon toggles the window. On Windows the press on the icon first takes focus
 * from the window (blur hides it), then the click arrives: without remembering that blur, the
 * click would show the window again, and the icon could never close it.
 */
import { describe, expect, it } from 'vitest';
import { BLUR_CLICK_WINDOW_MS, createTrayToggle } from '#main/tray-toggle.js';

function setup(): {
  toggle: ReturnType<typeof createTrayToggle>;
  state: { visible: boolean; nowMs: number };
} {
  const state = { visible: false, nowMs: 1_000_000 };
  const toggle = createTrayToggle({
    nowMs: () => state.nowMs,
    isVisible: () => state.visible,
    show: () => {
      state.visible = true;
    },
    hide: () => {
      state.visible = false;
    },
  });
  return { toggle, state };
}

describe('tray click toggles the window', () => {
  it('shows a hidden window', () => {
    const { toggle, state } = setup();
    toggle.onTrayClick();
    expect(state.visible).toBe(true);
  });

  it('hides a visible window (platforms where the click does not blur it)', () => {
    const { toggle, state } = setup();
    state.visible = true;
    toggle.onTrayClick();
    expect(state.visible).toBe(false);
  });

  it('hides the window when it loses focus', () => {
    const { toggle, state } = setup();
    state.visible = true;
    toggle.onBlur();
    expect(state.visible).toBe(false);
  });

  it('a click right after the blur it caused leaves the window closed', () => {
    const { toggle, state } = setup();
    state.visible = true;
    toggle.onBlur(); // press on the tray icon
    state.nowMs += 50;
    toggle.onTrayClick(); // release: the same gesture
    expect(state.visible).toBe(false);
  });

  it('a later click, after a blur long ago, opens the window again', () => {
    const { toggle, state } = setup();
    state.visible = true;
    toggle.onBlur();
    state.nowMs += BLUR_CLICK_WINDOW_MS;
    toggle.onTrayClick();
    expect(state.visible).toBe(true);
  });
});
