/**
 * Steps of the Electron composition root (index.ts, docs/DESKTOP.md §Layout) that wire the
 * running app's `TrayApp` record to Electron: the tray icon, the window's push events, and the
 * OS shutdown. Thin: every decision is in the modules they call.
 */
import { join } from 'node:path';
import { nativeImage, powerMonitor, Tray, type BrowserWindow } from 'electron';
import type { AppController } from '#app/app-controller.js';
import { bridgeEvents } from '#app/bridge-handlers.js';
import {
  EVENT_NAMES,
  EVENTS,
  type BridgeEventSources,
  type EventName,
} from '#preload/ipc-contract.js';
import { attachOsShutdown } from './os-shutdown.js';
import { popUpTrayMenu, type TrayApp } from './tray-app.js';

/** The tray icon file of this platform, in resources/. */
function trayIconFile(platform: NodeJS.Platform): string {
  // macOS draws template images in the menu bar's own colour; Windows picks the size for its
  // scaling from a multi-size .ico.
  if (platform === 'darwin') return 'trayTemplate.png';
  return platform === 'win32' ? 'tray.ico' : 'tray.png';
}

/** Puts the app's icon in the tray: a click toggles the window, a right-click shows the menu. */
export function createTrayIcon(trayApp: TrayApp, resourcesDir: string, onClick: () => void): void {
  const icon = nativeImage.createFromPath(join(resourcesDir, trayIconFile(process.platform)));
  trayApp.tray = new Tray(icon);
  trayApp.tray.on('click', onClick);
  trayApp.tray.on('right-click', () => popUpTrayMenu(trayApp));
}

/** Every push event of the contract goes to the window, while it exists. */
export function forwardEvents(
  trayApp: TrayApp,
  c: AppController,
  section: BridgeEventSources['section'],
): void {
  const events = bridgeEvents(c, section);
  const forward = <K extends EventName>(name: K): void => {
    events[name]((payload) => {
      const win = trayApp.window;
      if (win !== null && !win.isDestroyed()) win.webContents.send(EVENTS[name].channel, payload);
    });
  };
  for (const name of EVENT_NAMES) forward(name);
}

/** Shutdown or log-off: abort a pull, let a commit finish (bounded), release the lock. */
export function attachShutdown(
  trayApp: TrayApp,
  win: BrowserWindow,
  close: () => Promise<void>,
  exit: () => void,
): void {
  const log = (level: 'info' | 'warn' | 'error', message: string): void =>
    trayApp.log?.write(level, message);
  attachOsShutdown(
    {
      onSessionEnd: (listener) => {
        // query-session-end comes first and leaves more time; session-end is the last word.
        win.on('query-session-end', listener);
        win.on('session-end', listener);
      },
      onPowerShutdown: (listener) =>
        // Typed without arguments, but Electron passes an event whose preventDefault()
        // delays the shutdown (powerMonitor docs).
        powerMonitor.on('shutdown', (...args: unknown[]) => {
          const event = args[0] as { preventDefault?: () => void } | undefined;
          listener({ preventDefault: () => event?.preventDefault?.() });
        }),
    },
    {
      platform: process.platform,
      close,
      markQuitting: () => {
        trayApp.quitting = true;
      },
      exit,
      timers: {
        setTimeout: (callback, ms) => setTimeout(callback, ms),
        clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
      },
      log,
    },
  );
}
