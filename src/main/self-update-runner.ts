/**
 * Runs the app's self-update after the core applied a release (docs/RELEASING.md "Self-update
 * targets"): the Electron-free path is src/app/self-update/; this wires in the running app's
 * facts, the question to the user, the notices and the quit. One run at a time: a second
 * call while one runs joins it.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppTarget, RunningApp } from '../app/self-update/app-target.js';
import { nodeHandOverOps } from '../app/self-update/hand-over-ops.js';
import type { RunningInstall } from '../app/self-update/running-install.js';
import type { SelfUpdateMode } from '../app/self-update/self-update-mode.js';
import { runSelfUpdate, type SelfUpdateOutcome } from '../app/self-update/self-update.js';
import type { InstalledVerifyReport } from '../app/self-update/verified-copy.js';
import { resolveCurrentSet } from '#node/index.js';
import type { NoticeText } from './notice-text.js';

export interface SelfUpdateRunnerDeps {
  readonly running: RunningApp;
  /** null where the app cannot replace itself (a development run, an unknown layout). */
  readonly install: RunningInstall | null;
  readonly mode: () => SelfUpdateMode;
  readonly ask: (target: AppTarget) => Promise<boolean>;
  readonly notify: (notice: NoticeText) => void;
  readonly log: (level: 'info' | 'warn' | 'error', message: string) => void;
  readonly quit: () => void;
  /** userData/self-update: the installer and .deb copies. */
  readonly workDir: string;
}

/** What the user is told about an outcome, if anything. */
export function selfUpdateNotice(outcome: SelfUpdateOutcome): NoticeText | null {
  switch (outcome.kind) {
    case 'handed-over':
      if (outcome.result.kind === 'manual') {
        return {
          title: `Verified Updater ${outcome.version} is ready to install`,
          body: `The verified package is at ${outcome.result.path}. Install it with: ${outcome.result.command}`,
        };
      }
      if (outcome.result.kind === 'installed-on-restart') {
        return {
          title: `Verified Updater ${outcome.version} is installed`,
          body: 'It starts the next time you start the app.',
        };
      }
      return null;
    case 'failed':
      return {
        title: `Verified Updater ${outcome.version} was not installed`,
        body: `${outcome.message} (${outcome.code}). This version keeps running.`,
      };
    default:
      return null;
  }
}

export interface SelfUpdateRunner {
  /** After the core applied a release in `stateDir`, with that core's verify(). */
  afterApplied(stateDir: string, verify: () => Promise<InstalledVerifyReport>): Promise<void>;
}

export function createSelfUpdateRunner(deps: SelfUpdateRunnerDeps): SelfUpdateRunner {
  let running: Promise<void> | null = null;
  const run = async (stateDir: string, verify: () => Promise<InstalledVerifyReport>) => {
    const install = deps.install;
    if (install === null) return;
    await mkdir(deps.workDir, { recursive: true, mode: 0o700 });
    const outcome = await runSelfUpdate({
      mode: deps.mode(),
      running: deps.running,
      install,
      liveSetDir: () => resolveCurrentSet(stateDir),
      listDir: (dir) => readdir(dir).catch(() => []),
      verifyInstalled: verify,
      ask: deps.ask,
      workDir: deps.workDir,
      unique: () => `update-${randomBytes(6).toString('hex')}`,
      ops: nodeHandOverOps(deps.quit),
    });
    deps.log(
      outcome.kind === 'failed' ? 'error' : 'info',
      `self-update: ${JSON.stringify(outcome)}`,
    );
    const notice = selfUpdateNotice(outcome);
    if (notice !== null) deps.notify(notice);
  };
  return {
    afterApplied(stateDir, verify) {
      running ??= run(stateDir, verify).finally(() => {
        running = null;
      });
      return running;
    },
  };
}

/** userData/self-update. */
export function selfUpdateWorkDir(userData: string): string {
  return join(userData, 'self-update');
}
