/**
 * The tray window (Electron): frameless, anchored next to the tray icon, locked down per
 * Electron's security checklist (contextIsolation, sandbox, no nodeIntegration, our own
 * app:// page, navigation, redirects, webviews and new windows denied). docs/DESKTOP.md
 * §Decisions, "Security", lists each rule.
 */
import { BrowserWindow, screen, type Tray } from 'electron';
import { APP_ENTRY_URL } from '#app/app-protocol.js';
import type { WindowStyle } from './launch-mode.js';
import { windowPosition } from './window-position.js';

export const WINDOW_SIZE = { width: 380, height: 560 };

export interface MainWindowOptions {
  /** The bundled preload (dist/app/preload/index.cjs). */
  readonly preloadPath: string;
  /** The window lost focus (the tray toggle hides it). */
  readonly onBlur: () => void;
  /** Packaged builds have no DevTools (docs/DESKTOP.md "Lifecycle"). */
  readonly devTools: boolean;
  /** 'tray' next to the tray icon; 'normal' where the desktop has no tray (launch-mode.ts). */
  readonly style: WindowStyle;
  /** The app icon, for the title bar and taskbar of a normal window. */
  readonly iconPath?: string;
}

/** The frame and taskbar options of each style (docs/DESKTOP.md "Launch"). */
export function styleOptions(style: WindowStyle): {
  frame: boolean;
  skipTaskbar: boolean;
  alwaysOnTop: boolean;
  resizable: boolean;
} {
  // A normal window is the app's only way back where no tray exists: framed, in the taskbar.
  return style === 'tray'
    ? { frame: false, skipTaskbar: true, alwaysOnTop: true, resizable: false }
    : { frame: true, skipTaskbar: false, alwaysOnTop: false, resizable: true };
}

/** Creates the hidden window and starts loading the page. */
export function createMainWindow(options: MainWindowOptions): BrowserWindow {
  const win = new BrowserWindow({
    ...WINDOW_SIZE,
    show: false,
    // Otherwise a never-shown window reports document.visibilityState 'visible' and the
    // widget, which pauses while hidden, would poll the registry before anyone opens it.
    paintWhenInitiallyHidden: false,
    ...styleOptions(options.style),
    ...(options.iconPath === undefined ? {} : { icon: options.iconPath }),
    title: 'Verified Updater',
    webPreferences: {
      preload: options.preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
      devTools: options.devTools,
    },
  });
  // Navigation and new windows are denied: the window only ever shows our own page.
  win.webContents.on('will-navigate', (event) => event.preventDefault());
  win.webContents.on('will-redirect', (event) => event.preventDefault());
  win.webContents.on('will-attach-webview', (event) => event.preventDefault());
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  // Only the tray window hides on blur; a normal window stays where the user put it.
  if (options.style === 'tray') win.on('blur', options.onBlur);
  // Our own scheme, never file:// (checklist §18); it sends the CSP header (app-protocol.ts).
  void win.loadURL(APP_ENTRY_URL);
  return win;
}

/** Shows the window next to the tray icon, inside that display's work area, focused. */
export function showNearTray(win: BrowserWindow, tray: Tray | null): void {
  if (tray === null) {
    // A normal window (no tray): restore it where it was.
    if (win.isMinimized()) win.restore();
    win.show();
    win.focus();
    return;
  }
  const trayBounds = tray.getBounds();
  const display = screen.getDisplayNearestPoint({ x: trayBounds.x, y: trayBounds.y });
  const { x, y } = windowPosition(trayBounds, WINDOW_SIZE, display.workArea);
  win.setPosition(x, y);
  win.show();
  win.focus();
}
