/**
 * The running tray app's one mutable record: what the Electron composition root
 * (src/main/index.ts) creates at boot and closes at quit, in one place instead of module
 * globals. Helpers here read it; none of them decide anything (the controller does).
 */
import { app, Menu, type BrowserWindow, type Tray } from 'electron';
import type { AppController } from '#app/app-controller.js';
import type { DemoServer } from '#app/registry/first-run.js';
import type { FirstShow, WindowStyle } from './launch-mode.js';
import type { LogFile } from '#app/log-file.js';
import type { WindowSection } from '#preload/ipc-contract.js';
import { showNearTray } from './main-window.js';
import { trayMenuPolicy } from './tray-menu-policy.js';
import { trayMenuTemplate, trayTooltip } from './tray-menu.js';

export interface TrayApp {
  window: BrowserWindow | null;
  tray: Tray | null;
  controller: AppController | null;
  /** The in-process demo registry, when the app runs on it. */
  demo: DemoServer | null;
  log: LogFile | null;
  /** Pauses or resumes the schedule and remembers the choice (set once settings are open). */
  setPaused: (paused: boolean) => void;
  /** Set when the app quits: only then may the window really close (window-lifecycle.ts). */
  quitting: boolean;
  /** The tray menu as last built (popped up on right click where it is not set). */
  trayMenu: Menu | null;
  /** How this launch shows its window (launch-mode.ts); 'tray' until boot decides. */
  windowStyle: WindowStyle;
  /** Asks the window to show one of its sections (the `section` push event). */
  showSection: (section: WindowSection) => void;
}

/** The record before boot: nothing open yet. */
export function emptyTrayApp(): TrayApp {
  return {
    window: null,
    tray: null,
    controller: null,
    demo: null,
    log: null,
    setPaused: () => undefined,
    quitting: false,
    trayMenu: null,
    windowStyle: 'tray',
    showSection: () => undefined,
  };
}

/**
 * Shows the window next to the tray icon, or as a normal window where the desktop has no
 * tray (no-op before the window exists; in tray style, before the tray exists).
 */
export function showWindow(trayApp: TrayApp): void {
  if (trayApp.window === null) return;
  if (trayApp.tray === null && trayApp.windowStyle === 'tray') return;
  showNearTray(trayApp.window, trayApp.tray);
}

/** The first show of this launch (launch-mode.ts): shown, left in the tray, or minimised. */
export function firstShow(trayApp: TrayApp, how: FirstShow): void {
  if (how === 'show') showWindow(trayApp);
  // A hidden window that is minimised appears in the taskbar, minimised (the no-tray login).
  else if (how === 'minimised') trayApp.window?.minimize();
}

/** Rebuilds the tray tooltip and menu from the current status. */
export function refreshTray(trayApp: TrayApp): void {
  const { tray, controller } = trayApp;
  if (tray === null || controller === null) return;
  const status = controller.getStatus();
  tray.setToolTip(trayTooltip(status));
  trayApp.trayMenu = Menu.buildFromTemplate(
    trayMenuTemplate(
      status,
      {
        checkNow: () => void controller.checkNow(),
        cancel: () => void controller.cancel(),
        open: () => showWindow(trayApp),
        openSettings: () => {
          trayApp.showSection('settings');
          showWindow(trayApp);
        },
        setPaused: (paused) => trayApp.setPaused(paused),
        quit: () => app.quit(),
      },
      app.getVersion(),
    ),
  );
  if (trayMenuPolicy(process.platform) === 'set-context-menu')
    tray.setContextMenu(trayApp.trayMenu);
}

/** Where the menu is not set (macOS), right click pops it up; left click stays the toggle. */
export function popUpTrayMenu(trayApp: TrayApp): void {
  if (trayApp.tray === null || trayApp.trayMenu === null) return;
  if (trayMenuPolicy(process.platform) !== 'pop-up-on-right-click') return;
  trayApp.tray.popUpContextMenu(trayApp.trayMenu);
}

/** Closes the core (releasing its state lock), then the in-process demo server. */
export async function closeTrayApp(trayApp: TrayApp): Promise<void> {
  await trayApp.controller?.close();
  await trayApp.demo?.close();
}
