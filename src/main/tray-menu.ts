/**
 * The tray menu as data: a pure function of the app status, so it is unit-tested without
 * Electron and rebuilt whenever the status changes (docs/DESKTOP.md "Tray": what the updater
 * is doing, the installed release, Check for updates now, Cancel while a transfer runs, Open,
 * Settings…, Pause updates, the app's own version, Quit).
 */
import type { MenuItemConstructorOptions } from 'electron';
import type { AppStatus } from '#preload/ipc-contract.js';
import { canCancel, installedLabel, trayStatusLabel } from './tray-status-label.js';

export interface TrayActions {
  readonly checkNow: () => void;
  /** Stops the transfer in flight (its verified bytes are kept for the next run). */
  readonly cancel: () => void;
  readonly open: () => void;
  /** Opens the window on its settings. */
  readonly openSettings: () => void;
  readonly setPaused: (paused: boolean) => void;
  readonly quit: () => void;
}

/** Builds the template handed to Menu.buildFromTemplate; `appVersion` is app.getVersion(). */
export function trayMenuTemplate(
  status: AppStatus,
  actions: TrayActions,
  appVersion: string,
): MenuItemConstructorOptions[] {
  const idle = status.phase === 'idle';
  const cancel: MenuItemConstructorOptions[] = canCancel(status)
    ? [{ id: 'cancel', label: 'Cancel download', click: () => actions.cancel() }]
    : [];
  return [
    { id: 'status', label: trayStatusLabel(status), enabled: false },
    { id: 'installed', label: installedLabel(status), enabled: false },
    { type: 'separator' },
    {
      id: 'check-now',
      label: 'Check for updates now',
      enabled: idle,
      click: () => actions.checkNow(),
    },
    ...cancel,
    { type: 'separator' },
    { id: 'open', label: 'Open Verified Updater', click: () => actions.open() },
    { id: 'settings', label: 'Settings…', click: () => actions.openSettings() },
    {
      id: 'pause',
      label: 'Pause updates',
      type: 'checkbox',
      checked: status.paused,
      click: () => actions.setPaused(!status.paused),
    },
    { type: 'separator' },
    { id: 'version', label: `Verified Updater ${appVersion}`, enabled: false },
    // No `role: 'quit'`: a role would bypass click, and quitting must go through shutdown.
    { id: 'quit', label: 'Quit', click: () => actions.quit() },
  ];
}

/** The tray tooltip: the product name and what it is doing. */
export function trayTooltip(status: AppStatus): string {
  return `Verified Updater: ${trayStatusLabel(status)}`;
}
