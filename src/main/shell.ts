/**
 * The running tray app's one mutable record: what the Electron composition root
 * (src/main/index.ts) creates at boot and closes at quit, in one place instead of module
 * globals. Helpers here read it; none of them decide anything (the controller does).
 */
import { app, Menu, type BrowserWindow, type Tray } from 'electron';
import type { AppController } from './app-controller.js';
import type { DemoServer } from './first-run.js';
import type { LogFile } from './log-file.js';
import { showNearTray } from './main-window.js';
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
  };
}

/** Shows the window next to the tray icon (no-op before both exist). */
export function showWindow(shell: Shell): void {
  if (shell.window === null || shell.tray === null) return;
  showNearTray(shell.window, shell.tray);
}

/** Rebuilds the tray tooltip and menu from the current status. */
export function refreshTray(shell: Shell): void {
  const { tray, controller } = shell;
  if (tray === null || controller === null) return;
  const status = controller.getStatus();
  tray.setToolTip(trayTooltip(status));
  tray.setContextMenu(
    Menu.buildFromTemplate(
      trayMenuTemplate(status, {
        checkNow: () => void controller.checkNow(),
        open: () => showWindow(shell),
        setPaused: (paused) => shell.setPaused(paused),
        quit: () => app.quit(),
      }),
    ),
  );
}

/** Closes the core (releasing its state lock), then the in-process demo server. */
export async function closeShell(shell: Shell): Promise<void> {
  await shell.controller?.close();
  await shell.demo?.close();
}
