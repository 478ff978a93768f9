/**
 * Keys the tray window answers itself (docs/DESKTOP.md "Lifecycle"): Esc hides it, as a menu
 * or a popover closes. Pure; src/main wires it to `before-input-event` without preventing the
 * key, so the page still sees it (an open dialog or the settings close as well).
 */

/** The slice of Electron's `Input` this decision reads. */
export interface KeyInput {
  readonly type: string;
  readonly key: string;
  readonly alt: boolean;
  readonly control: boolean;
  readonly meta: boolean;
  readonly shift: boolean;
  readonly isAutoRepeat: boolean;
}

/**
 * True when this key press hides the window: a plain Esc going down, once (held keys repeat),
 * in the tray window only; a normal window (a desktop without a tray) is closed as any other.
 */
export function escHidesWindow(input: KeyInput, trayWindow: boolean): boolean {
  if (!trayWindow || input.type !== 'keyDown' || input.isAutoRepeat) return false;
  if (input.alt || input.control || input.meta || input.shift) return false;
  return input.key === 'Escape';
}
