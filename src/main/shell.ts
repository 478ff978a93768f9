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

export interface Shell {
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
export function emptyShell(): Shell {
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
export function showWindow(shell: Shell): void {
  if (shell.window === null) return;
  if (shell.tray === null && shell.windowStyle === 'tray') return;
  showNearTray(shell.window, shell.tray);
}

/** The first show of this launch (launch-mode.ts): shown, left in the tray, or minimised. */
export function firstShow(shell: Shell, how: FirstShow): void {
  if (how === 'show') showWindow(shell);
  // A hidden window that is minimised appears in the taskbar, minimised (the no-tray login).
  else if (how === 'minimised') shell.window?.minimize();
}

/** Rebuilds the tray tooltip and menu from the current status. */
export function refreshTray(shell: Shell): void {
  const { tray, controller } = shell;
  if (tray === null || controller === null) return;
  const status = controller.getStatus();
  tray.setToolTip(trayTooltip(status));
  shell.trayMenu = Menu.buildFromTemplate(
    trayMenuTemplate(
      status,
      {
        checkNow: () => void controller.checkNow(),
        cancel: () => void controller.cancel(),
        open: () => showWindow(shell),
        openSettings: () => {
          shell.showSection('settings');
          showWindow(shell);
        },
        setPaused: (paused) => shell.setPaused(paused),
        quit: () => app.quit(),
      },
      app.getVersion(),
    ),
  );
  if (trayMenuPolicy(process.platform) === 'set-context-menu') tray.setContextMenu(shell.trayMenu);
}

/** Where the menu is not set (macOS), right click pops it up; left click stays the toggle. */
export function popUpTrayMenu(shell: Shell): void {
  if (shell.tray === null || shell.trayMenu === null) return;
  if (trayMenuPolicy(process.platform) !== 'pop-up-on-right-click') return;
  shell.tray.popUpContextMenu(shell.trayMenu);
}

/** Closes the core (releasing its state lock), then the in-process demo server. */
export async function closeShell(shell: Shell): Promise<void> {
  await shell.controller?.close();
  await shell.demo?.close();
}
