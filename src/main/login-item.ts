/**
 * Start at login (a setting, off by default; docs/DESKTOP.md "Lifecycle"). macOS and Windows
 * have Electron's app.setLoginItemSettings; Linux has none, so there the app writes (or
 * removes) an XDG autostart entry, `$XDG_CONFIG_HOME/autostart/verified-updater.desktop`
 * (XDG Autostart Specification 0.5). Electron-free: Electron's call and the file system are
 * injected.
 */
import { join } from 'node:path';

export interface LoginItemDeps {
  readonly platform: NodeJS.Platform;
  /** Electron's app.setLoginItemSettings (macOS, Windows). */
  readonly setLoginItemSettings: (settings: { openAtLogin: boolean }) => void;
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
    `Exec=${quoteExecArgument(executable)}`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

/** Turns start at login on or off for this user. */
export async function applyStartAtLogin(enabled: boolean, deps: LoginItemDeps): Promise<void> {
  if (deps.platform === 'darwin' || deps.platform === 'win32') {
    deps.setLoginItemSettings({ openAtLogin: enabled });
    return;
  }
  const path = join(deps.autostartDir, AUTOSTART_FILE);
  if (enabled) await deps.writeFile(path, autostartEntry(deps.executable));
  else await deps.removeFile(path);
}
