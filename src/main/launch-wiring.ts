/**
 * The launch's Electron side (docs/DESKTOP.md "Launch"): the facts launch-mode.ts decides on,
 * the first-launch notice's marker, and start at login. argv and the environment are read
 * here, at the entry point, only.
 */
import { access, mkdir, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { app } from 'electron';
import { NOTICE_MARKER_FILE, tellOnce } from './first-launch-notice.js';
import { readLaunchPlan, runProgram } from './launch-facts.js';
import type { LaunchPlan } from './launch-mode.js';
import type { LoginItemDeps } from './login-item.js';

/** Start at login through Electron (macOS, Windows) or an XDG autostart entry (Linux). */
export function loginItemDeps(): LoginItemDeps {
  const configHome = process.env['XDG_CONFIG_HOME'] ?? join(homedir(), '.config');
  return {
    platform: process.platform,
    setLoginItemSettings: (settings) => app.setLoginItemSettings(settings),
    autostartDir: join(configHome, 'autostart'),
    // An AppImage runs from a temporary mount: start the AppImage file itself.
    executable: process.env['APPIMAGE'] ?? process.execPath,
    writeFile: async (path, text) => {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, text, { mode: 0o644 });
    },
    removeFile: (path) => rm(path, { force: true }),
  };
}

/** This launch's window style and first show (launch-mode.ts); argv and env read here only. */
export function decideLaunch(): Promise<LaunchPlan> {
  return readLaunchPlan({
    platform: process.platform,
    argv: process.argv,
    xdgCurrentDesktop: process.env['XDG_CURRENT_DESKTOP'],
    wasOpenedAtLogin: () => app.getLoginItemSettings().wasOpenedAtLogin,
    run: runProgram,
  });
}

/** The first launch's one notice: where the app lives (first-launch-notice.ts). */
export async function tellWhereTheAppLives(show: () => void): Promise<void> {
  const marker = join(app.getPath('userData'), NOTICE_MARKER_FILE);
  await tellOnce(
    {
      exists: () =>
        access(marker).then(
          () => true,
          () => false,
        ),
      write: () => writeFile(marker, '', { mode: 0o600 }),
    },
    show,
  );
}
