/**
 * The tray window (Electron): frameless, anchored next to the tray icon, locked down per
 * Electron's security checklist (contextIsolation, sandbox, no nodeIntegration, our own
 * app:// page, navigation, redirects, webviews and new windows denied). docs/DESKTOP.md
 * §Decisions, "Security", lists each rule.
 */
import { BrowserWindow, screen, type Tray } from 'electron';
import { APP_ENTRY_URL } from '#app/app-protocol.js';
import { windowPosition } from './window-position.js';

export const WINDOW_SIZE = { width: 380, height: 560 };

export interface MainWindowOptions {
  /** The bundled preload (dist/app/preload/index.cjs). */
  readonly preloadPath: string;
  /** The window lost focus (the tray toggle hides it). */
  readonly onBlur: () => void;
  /** Packaged builds have no DevTools (docs/DESKTOP.md "Lifecycle"). */
  readonly devTools: boolean;
}

/** Creates the hidden window and starts loading the page. */
export function createMainWindow(options: MainWindowOptions): BrowserWindow {
  const win = new BrowserWindow({
    ...WINDOW_SIZE,
    show: false,
    // Otherwise a never-shown window reports document.visibilityState 'visible' and the
    // widget, which pauses while hidden, would poll the registry before anyone opens it.
    paintWhenInitiallyHidden: false,
    frame: false,
    resizable: false,
    skipTaskbar: true,
    alwaysOnTop: true,
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
  win.on('blur', options.onBlur);
  // Our own scheme, never file:// (checklist §18); it sends the CSP header (app-protocol.ts).
  void win.loadURL(APP_ENTRY_URL);
  return win;
}

/** Shows the window next to the tray icon, inside that display's work area, focused. */
export function showNearTray(win: BrowserWindow, tray: Tray): void {
  const trayBounds = tray.getBounds();
  const display = screen.getDisplayNearestPoint({ x: trayBounds.x, y: trayBounds.y });
  const { x, y } = windowPosition(trayBounds, WINDOW_SIZE, display.workArea);
  win.setPosition(x, y);
  win.show();
  win.focus();
}
