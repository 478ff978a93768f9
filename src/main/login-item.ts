/**
 * Start at login (a setting, off by default; docs/DESKTOP.md "Lifecycle"). macOS and Windows
 * have Electron's app.setLoginItemSettings; Linux has none, so there the app writes (or
 * removes) an XDG autostart entry, `$XDG_CONFIG_HOME/autostart/verified-updater.desktop`
 * (XDG Autostart Specification 0.5). Electron-free: Electron's call and the file system are
 * injected. What the session starts carries `--hidden` (Windows login item, XDG entry), so
 * that launch stays in the tray (launch-mode.ts); macOS has no arguments for login items and
 * reports `wasOpenedAtLogin` instead (docs/DESKTOP.md "Launch").
 */
import { join } from 'node:path';
import { HIDDEN_ARGUMENT } from './launch-mode.js';

export interface LoginItemDeps {
  readonly platform: NodeJS.Platform;
  /** Electron's app.setLoginItemSettings (macOS, Windows). */
  readonly setLoginItemSettings: (settings: { openAtLogin: boolean; args?: string[] }) => void;
  /** Linux: the autostart folder ($XDG_CONFIG_HOME/autostart, else ~/.config/autostart). */
  readonly autostartDir: string;
  /** Linux: what the entry starts (the AppImage when run from one, else the executable). */
  readonly executable: string;
  readonly writeFile: (path: string, text: string) => Promise<void>;
  /** Removes a file; a missing one is not an error. */
  readonly removeFile: (path: string) => Promise<void>;
}

export const AUTOSTART_FILE = 'verified-updater.desktop';

/** Quotes one Exec argument (Desktop Entry Specification 1.5, "The Exec key"). */
export function quoteExecArgument(text: string): string {
  return `"${text.replace(/["`$\\]/g, (c) => `\\${c}`)}"`;
}

/** The autostart entry that starts `executable` at login. */
export function autostartEntry(executable: string): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Verified Updater',
    'Comment=Keeps the installed release up to date (starts in the tray)',
    `Exec=${quoteExecArgument(executable)} ${HIDDEN_ARGUMENT}`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

/** Turns start at login on or off for this user. */
export async function applyStartAtLogin(enabled: boolean, deps: LoginItemDeps): Promise<void> {
  if (deps.platform === 'darwin') {
    deps.setLoginItemSettings({ openAtLogin: enabled });
    return;
  }
  if (deps.platform === 'win32') {
    // Windows matches the Run entry by path and arguments: the same args on and off.
    deps.setLoginItemSettings({ openAtLogin: enabled, args: [HIDDEN_ARGUMENT] });
    return;
  }
  const path = join(deps.autostartDir, AUTOSTART_FILE);
  if (enabled) await deps.writeFile(path, autostartEntry(deps.executable));
  else await deps.removeFile(path);
}
