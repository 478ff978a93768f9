/**
 * Gathers what launch-mode.ts decides on (docs/DESKTOP.md "Launch"): the arguments, whether
 * macOS opened the app at login, and whether the desktop has a tray. Electron-free: Electron's
 * answer and the process runner are injected; `runProgram` is the real runner.
 */
import { execFile } from 'node:child_process';
import { launchPlan, type LaunchPlan } from './launch-mode.js';
import { probeStatusNotifierWatcher, type RunProgram } from './status-notifier-probe.js';
import { needsWatcherProbe, trayAvailable } from './tray-availability.js';

export interface LaunchFactsDeps {
  readonly platform: NodeJS.Platform;
  readonly argv: readonly string[];
  /** XDG_CURRENT_DESKTOP, read at the entry point. */
  readonly xdgCurrentDesktop: string | undefined;
  /** app.getLoginItemSettings().wasOpenedAtLogin; asked on macOS only (elsewhere absent). */
  readonly wasOpenedAtLogin: () => boolean;
  readonly run: RunProgram;
}

export async function readLaunchPlan(deps: LaunchFactsDeps): Promise<LaunchPlan> {
  const watcher = needsWatcherProbe(deps.platform, deps.xdgCurrentDesktop)
    ? await probeStatusNotifierWatcher(deps.run)
    : null;
  return launchPlan({
    argv: deps.argv,
    wasOpenedAtLogin: deps.platform === 'darwin' && deps.wasOpenedAtLogin(),
    trayAvailable: trayAvailable({
      platform: deps.platform,
      xdgCurrentDesktop: deps.xdgCurrentDesktop,
      statusNotifierWatcher: watcher,
    }),
  });
}

/** Runs a program without a shell, with a timeout and a small output cap. */
export const runProgram: RunProgram = (file, args, timeoutMs) =>
  new Promise((resolve, reject) => {
    execFile(file, [...args], { timeout: timeoutMs, maxBuffer: 64 * 1024 }, (error, stdout) => {
      if (error !== null) reject(new Error(`${file}: ${error.message}`));
      else resolve(stdout);
    });
  });
