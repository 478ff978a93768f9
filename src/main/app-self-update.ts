/**
 * The app's self-update with Electron's facts (docs/RELEASING.md "Self-update targets"): the
 * running version and install, the question before a restart, the quit. Only a packaged app
 * replaces itself; the path itself is src/app/self-update/, driven by self-update-runner.ts.
 */
import { app, dialog } from 'electron';
import { runningInstall } from '../app/self-update/running-install.js';
import {
  DEFAULT_SELF_UPDATE_MODE,
  type SelfUpdateMode,
} from '../app/self-update/self-update-mode.js';
import type { NoticeText } from './notice-text.js';
import {
  createSelfUpdateRunner,
  selfUpdateWorkDir,
  type SelfUpdateRunner,
} from './self-update-runner.js';

export function createAppSelfUpdate(deps: {
  notify: (notice: NoticeText) => void;
  log: (level: 'info' | 'warn' | 'error', message: string) => void;
  /** The setting "update the app itself" (read at each run); ask first when absent. */
  mode?: () => SelfUpdateMode;
}): SelfUpdateRunner {
  const install = app.isPackaged
    ? runningInstall({
        platform: process.platform,
        execPath: process.execPath,
        appImage: process.env['APPIMAGE'],
      })
    : null;
  return createSelfUpdateRunner({
    running: {
      version: app.getVersion(),
      platform: process.platform,
      arch: process.arch,
      // Without an install (a development run) the runner does nothing at all.
      kind: install?.kind ?? 'deb',
    },
    install,
    mode: deps.mode ?? (() => DEFAULT_SELF_UPDATE_MODE),
    ask: async (target) =>
      (
        await dialog.showMessageBox({
          type: 'question',
          buttons: ['Restart and update', 'Later'],
          defaultId: 0,
          cancelId: 1,
          message: `Verified Updater ${target.version} is verified and ready.`,
          detail: 'The app restarts to install it.',
        })
      ).response === 0,
    notify: deps.notify,
    log: deps.log,
    quit: () => app.quit(),
    workDir: selfUpdateWorkDir(app.getPath('userData')),
  });
}
