/**
 * The tray menu as data: a pure function of the app status, so it is unit-tested without
 * Electron and rebuilt whenever the status changes (docs/DESKTOP.md §Layout: status line,
 * Check for updates now, Open, Pause updates, Quit).
 */
import type { MenuItemConstructorOptions } from 'electron';
import type { AppStatus } from '#preload/ipc-contract.js';
import { statusLine } from '#app/status/status-model.js';

export interface TrayActions {
  readonly checkNow: () => void;
  readonly open: () => void;
  readonly setPaused: (paused: boolean) => void;
  readonly quit: () => void;
}

/** Builds the template handed to Menu.buildFromTemplate. */
export function trayMenuTemplate(
  status: AppStatus,
  actions: TrayActions,
): MenuItemConstructorOptions[] {
  const busy = status.phase !== 'idle';
  return [
    { id: 'status', label: `${status.registryLabel}: ${statusLine(status)}`, enabled: false },
    { type: 'separator' },
    {
      id: 'check-now',
      label: busy ? 'Checking…' : 'Check for updates now',
      enabled: !busy,
      click: () => actions.checkNow(),
    },
    { id: 'open', label: 'Open', click: () => actions.open() },
    {
      id: 'pause',
      label: 'Pause updates',
      type: 'checkbox',
      checked: status.paused,
      click: () => actions.setPaused(!status.paused),
    },
    { type: 'separator' },
    // No `role: 'quit'`: a role would bypass click, and quitting must go through shutdown.
    { id: 'quit', label: 'Quit', click: () => actions.quit() },
  ];
}

/** The tray tooltip: the product name and the status line. */
export function trayTooltip(status: AppStatus): string {
  return `Verified Updater: ${statusLine(status)}`;
}
