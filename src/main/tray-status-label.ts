/**
 * The tray's words for the status (docs/DESKTOP.md "Tray"): what the updater is doing right
 * now, with the version it concerns, e.g. "Downloading 3.0.0 — 42 %". Pure.
 */
import type { AppStatus } from '#preload/ipc-contract.js';
import { percent } from '#app/status/status-model.js';

/** What the updater is doing, in one line. */
export function trayStatusLabel(status: AppStatus): string {
  const target = status.progress?.targetVersion ?? null;
  switch (status.phase) {
    case 'checking':
      return 'Checking for updates…';
    case 'downloading': {
      const pct =
        status.progress === null ? null : percent(status.progress.bytes, status.progress.total);
      const what = target === null ? 'Downloading' : `Downloading ${target}`;
      return pct === null ? `${what}…` : `${what} — ${pct} %`;
    }
    case 'applying':
      return target === null ? 'Installing…' : `Installing ${target}…`;
    case 'idle':
      break;
  }
  if (status.lastError !== null) return `Update failed (${status.lastError.code})`;
  if (status.paused) return 'Updates paused';
  if (status.installedVersion === null) return 'Nothing installed yet';
  return `Up to date (${status.installedVersion})`;
}

/** The installed release and where it comes from. */
export function installedLabel(status: AppStatus): string {
  const version = status.installedVersion ?? 'none yet';
  return `Installed: ${version} · ${status.registryLabel}`;
}

/** A transfer can be cancelled while bytes are moving, not while a commit runs. */
export function canCancel(status: AppStatus): boolean {
  return status.phase === 'downloading';
}
