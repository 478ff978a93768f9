/**
 * Where the frameless tray window goes: next to the tray icon, on the side the taskbar is on,
 * and always fully inside the display's work area (the area not covered by taskbars/docks).
 */
export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface Size {
  readonly width: number;
  readonly height: number;
}

/** Gap between the tray icon and the window, in DIPs. */
export const WINDOW_GAP = 4;

/**
 * Anchors the window to the tray icon. The taskbar edge is inferred from where the icon sits
 * relative to the work area (top on macOS, usually bottom on Windows/Linux, sometimes a side).
 * An empty tray rect (some Linux desktops report 0x0 at 0,0) anchors to the work area's
 * bottom-right corner instead.
 */
export function windowPosition(tray: Rect, window: Size, workArea: Rect): { x: number; y: number } {
  const right = workArea.x + workArea.width;
  const bottom = workArea.y + workArea.height;
  if (tray.width === 0 && tray.height === 0) {
    return clampInto(
      { x: right - window.width - WINDOW_GAP, y: bottom - window.height - WINDOW_GAP },
      window,
      workArea,
    );
  }
  const centreX = Math.round(tray.x + tray.width / 2 - window.width / 2);
  const centreY = Math.round(tray.y + tray.height / 2 - window.height / 2);
  let position: { x: number; y: number };
  if (tray.y + tray.height <= workArea.y) {
    position = { x: centreX, y: workArea.y + WINDOW_GAP }; // taskbar on top (macOS menu bar)
  } else if (tray.y >= bottom) {
    position = { x: centreX, y: bottom - window.height - WINDOW_GAP }; // taskbar at the bottom
  } else if (tray.x + tray.width <= workArea.x) {
    position = { x: workArea.x + WINDOW_GAP, y: centreY }; // taskbar on the left
  } else if (tray.x >= right) {
    position = { x: right - window.width - WINDOW_GAP, y: centreY }; // taskbar on the right
  } else if (tray.y < workArea.y + workArea.height / 2) {
    // Icon inside the work area (auto-hiding panels): open below it.
    position = { x: centreX, y: tray.y + tray.height + WINDOW_GAP };
  } else {
    position = { x: centreX, y: tray.y - window.height - WINDOW_GAP };
  }
  return clampInto(position, window, workArea);
}

function clampInto(
  position: { x: number; y: number },
  window: Size,
  workArea: Rect,
): { x: number; y: number } {
  const maxX = workArea.x + workArea.width - window.width;
  const maxY = workArea.y + workArea.height - window.height;
  return {
    x: Math.max(workArea.x, Math.min(position.x, maxX)),
    y: Math.max(workArea.y, Math.min(position.y, maxY)),
  };
}
