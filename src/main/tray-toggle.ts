/**
 * The tray icon toggles the window, and the window hides when it loses focus (docs/DESKTOP.md
 * §Decisions, "Window"). The two meet on Windows: pressing the icon takes focus from the
 * window first (blur hides it), then the click arrives and would show it again, so the icon
 * could never close the window.
 * A click this soon after a blur-hide is taken as the end of that same gesture.
 */

/** Longest gap between the blur and the click of one press on the tray icon. */
export const BLUR_CLICK_WINDOW_MS = 300;

export interface TrayToggleDeps {
  readonly nowMs: () => number;
  readonly isVisible: () => boolean;
  readonly show: () => void;
  readonly hide: () => void;
}

export interface TrayToggle {
  /** The window lost focus: hide it. */
  onBlur(): void;
  /** The tray icon was clicked: hide a visible window, show a hidden one. */
  onTrayClick(): void;
}

/** Creates the toggle over the window's show/hide. */
export function createTrayToggle(deps: TrayToggleDeps): TrayToggle {
  let hiddenByBlurAtMs = Number.NEGATIVE_INFINITY;
  return {
    onBlur() {
      if (!deps.isVisible()) return;
      hiddenByBlurAtMs = deps.nowMs();
      deps.hide();
    },
    onTrayClick() {
      if (deps.isVisible()) deps.hide();
      else if (deps.nowMs() - hiddenByBlurAtMs >= BLUR_CLICK_WINDOW_MS) deps.show();
    },
  };
}
