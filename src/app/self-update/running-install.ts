/**
 * How the running app was installed (docs/RELEASING.md "Self-update targets"): the package
 * kind and the path the hand-over replaces. Pure: the facts come from the entry point.
 */
import { dirname } from 'node:path';
import type { PackageKind } from './app-target.js';

export interface InstallFacts {
  readonly platform: NodeJS.Platform;
  /** process.execPath. */
  readonly execPath: string;
  /** $APPIMAGE, set by the AppImage runtime to the AppImage file itself. */
  readonly appImage: string | undefined;
}

export interface RunningInstall {
  readonly kind: PackageKind;
  /** What is replaced: the AppImage file, the .app bundle, the executable (NSIS, deb). */
  readonly path: string;
}

/** The .app bundle that holds `execPath` (…/X.app/Contents/MacOS/X), or null. */
export function macBundleOf(execPath: string): string | null {
  const at = execPath.lastIndexOf('.app/Contents/MacOS/');
  return at === -1 ? null : execPath.slice(0, at + '.app'.length);
}

export function runningInstall(facts: InstallFacts): RunningInstall | null {
  switch (facts.platform) {
    case 'linux':
      if (facts.appImage !== undefined && facts.appImage !== '') {
        return { kind: 'appimage', path: facts.appImage };
      }
      return { kind: 'deb', path: facts.execPath };
    case 'win32':
      return { kind: 'nsis', path: dirname(facts.execPath) };
    case 'darwin': {
      const bundle = macBundleOf(facts.execPath);
      return bundle === null ? null : { kind: 'mac-zip', path: bundle };
    }
    default:
      return null;
  }
}
