/**
 * The app updates itself through its own verified path (docs/RELEASING.md "Self-update
 * targets"). After the core installed a release, its live set may hold this app's installers
 * (`app/<platform>-<arch>/…`): the newest above the running version, of the running kind, is
 * chosen (never a downgrade), copied out as the signed bytes (verified-copy.ts), and handed to
 * the platform (hand-over.ts), as the setting says: automatically, after asking, or never.
 * Electron-free; every outside effect is injected, so the whole path runs under Node.
 */
import { join } from 'node:path';
import { appTargetDirs, selectAppUpdate, type AppTarget, type RunningApp } from './app-target.js';
import { copyPathFor, handOver, type HandOverOps, type HandOverResult } from './hand-over.js';
import type { RunningInstall } from './running-install.js';
import { SelfUpdateError, type SelfUpdateErrorCode } from './self-update-error.js';
import type { SelfUpdateMode } from './self-update-mode.js';
import { copyVerified, type InstalledVerifyReport } from './verified-copy.js';

export interface SelfUpdateDeps {
  readonly mode: SelfUpdateMode;
  readonly running: RunningApp;
  readonly install: RunningInstall;
  /** The installed set's folder (src/node/index.ts resolveCurrentSet), or null. */
  readonly liveSetDir: () => Promise<string | null>;
  /** File names in a folder of the set; [] when it does not exist. */
  readonly listDir: (dir: string) => Promise<string[]>;
  /** The core's verify() (src/node/index.ts UpdaterApi). */
  readonly verifyInstalled: () => Promise<InstalledVerifyReport>;
  /** Asks the user (mode 'ask'); true to go ahead. */
  readonly ask: (target: AppTarget) => Promise<boolean>;
  /** Where copies that are not beside the app go (the installer, the .deb). */
  readonly workDir: string;
  /** A fresh name part for temporary files. */
  readonly unique: () => string;
  readonly ops: HandOverOps;
}

export type SelfUpdateOutcome =
  | { readonly kind: 'off' }
  | { readonly kind: 'up-to-date' }
  | { readonly kind: 'declined'; readonly version: string }
  | { readonly kind: 'handed-over'; readonly version: string; readonly result: HandOverResult }
  | {
      readonly kind: 'failed';
      readonly version: string;
      readonly code: SelfUpdateErrorCode;
      readonly message: string;
    };

/** Every installer name of this platform in the live set (`app/<platform>-<arch>/<file>`). */
async function appTargetNames(deps: SelfUpdateDeps, live: string): Promise<string[]> {
  const names: string[] = [];
  for (const dir of appTargetDirs(deps.running.platform, deps.running.arch)) {
    for (const file of await deps.listDir(join(live, dir))) names.push(`${dir}/${file}`);
  }
  return names;
}

export async function runSelfUpdate(deps: SelfUpdateDeps): Promise<SelfUpdateOutcome> {
  if (deps.mode === 'never') return { kind: 'off' };
  const live = await deps.liveSetDir();
  if (live === null) return { kind: 'up-to-date' };
  const target = selectAppUpdate(await appTargetNames(deps, live), deps.running);
  if (target === null) return { kind: 'up-to-date' };
  if (deps.mode === 'ask' && !(await deps.ask(target))) {
    return { kind: 'declined', version: target.version };
  }
  const file = target.name.slice(target.name.lastIndexOf('/') + 1);
  const unique = deps.unique();
  const copyPath = copyPathFor(target.kind, deps.install.path, deps.workDir, file, unique);
  try {
    await copyVerified({
      source: join(live, target.name),
      name: target.name,
      tempPath: copyPath,
      verifyInstalled: deps.verifyInstalled,
    });
    const result = await handOver(
      { kind: target.kind, installPath: deps.install.path, copyPath, unique },
      deps.ops,
    );
    return { kind: 'handed-over', version: target.version, result };
  } catch (error) {
    if (!(error instanceof SelfUpdateError)) throw error;
    return { kind: 'failed', version: target.version, code: error.code, message: error.message };
  }
}
