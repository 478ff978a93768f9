import { describe, expect, it } from 'vitest';
import { escHidesWindow, type KeyInput } from '#app/window-keys.js';

const esc: KeyInput = {
  type: 'keyDown',
  key: 'Escape',
  alt: false,
  control: false,
  meta: false,
  shift: false,
  isAutoRepeat: false,
};

describe('Esc hides the tray window', () => {
  it('a plain Esc press hides the tray window', () => {
    expect(escHidesWindow(esc, true)).toBe(true);
  });

  it('a normal window (no tray) is not hidden by Esc: it could not be found again', () => {
    expect(escHidesWindow(esc, false)).toBe(false);
  });

  it('only the key going down, once, without modifiers', () => {
    expect(escHidesWindow({ ...esc, type: 'keyUp' }, true)).toBe(false);
    expect(escHidesWindow({ ...esc, isAutoRepeat: true }, true)).toBe(false);
    for (const modifier of ['alt', 'control', 'meta', 'shift'] as const) {
      expect(escHidesWindow({ ...esc, [modifier]: true }, true)).toBe(false);
    }
  });

  it('other keys do nothing', () => {
    expect(escHidesWindow({ ...esc, key: 'Enter' }, true)).toBe(false);
  });
});
