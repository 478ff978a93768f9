import { describe, expect, it } from 'vitest';
import { WINDOW_GAP, windowPosition } from '#main/window-position.js';

const win = { width: 360, height: 480 };

describe('window placement near the tray', () => {
  it('opens above a bottom taskbar, centred on the icon', () => {
    const workArea = { x: 0, y: 0, width: 1920, height: 1040 };
    const tray = { x: 1000, y: 1045, width: 24, height: 24 };
    expect(windowPosition(tray, win, workArea)).toEqual({
      x: 1000 + 12 - 180,
      y: 1040 - 480 - WINDOW_GAP,
    });
  });

  it('opens below a top menu bar (macOS)', () => {
    const workArea = { x: 0, y: 25, width: 1440, height: 875 };
    const tray = { x: 1200, y: 0, width: 22, height: 22 };
    expect(windowPosition(tray, win, workArea)).toEqual({ x: 1200 + 11 - 180, y: 25 + WINDOW_GAP });
  });

  it('opens beside a left or right taskbar', () => {
    const left = windowPosition({ x: 0, y: 500, width: 40, height: 40 }, win, {
      x: 48,
      y: 0,
      width: 1872,
      height: 1080,
    });
    expect(left).toEqual({ x: 48 + WINDOW_GAP, y: 520 - 240 });
    const right = windowPosition({ x: 1880, y: 500, width: 40, height: 40 }, win, {
      x: 0,
      y: 0,
      width: 1872,
      height: 1080,
    });
    expect(right).toEqual({ x: 1872 - 360 - WINDOW_GAP, y: 520 - 240 });
  });

  it('stays inside the work area when the icon is at the screen corner', () => {
    const workArea = { x: 0, y: 0, width: 1920, height: 1040 };
    const position = windowPosition({ x: 1900, y: 1045, width: 20, height: 20 }, win, workArea);
    expect(position.x + win.width).toBeLessThanOrEqual(1920);
    expect(position.x).toBe(1920 - 360);
  });

  it('stays inside a secondary display with negative coordinates', () => {
    const workArea = { x: -1280, y: 0, width: 1280, height: 984 };
    const position = windowPosition({ x: -1290, y: 990, width: 24, height: 24 }, win, workArea);
    expect(position.x).toBe(-1280);
    expect(position.y).toBe(984 - 480 - WINDOW_GAP);
  });

  it('falls back to the bottom-right corner when the tray reports an empty rect (Linux)', () => {
    const workArea = { x: 0, y: 0, width: 1920, height: 1080 };
    expect(windowPosition({ x: 0, y: 0, width: 0, height: 0 }, win, workArea)).toEqual({
      x: 1920 - 360 - WINDOW_GAP,
      y: 1080 - 480 - WINDOW_GAP,
    });
  });

  it('opens below an icon inside the top half of the work area (auto-hiding panel)', () => {
    const workArea = { x: 0, y: 0, width: 1920, height: 1080 };
    const position = windowPosition({ x: 900, y: 2, width: 24, height: 24 }, win, workArea);
    expect(position).toEqual({ x: 912 - 180, y: 26 + WINDOW_GAP });
  });
});
