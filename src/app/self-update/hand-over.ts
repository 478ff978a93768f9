/**
 * Hands a verified installer over to the platform (docs/RELEASING.md "Self-update targets").
 * The platform's operations are injected (hand-over-ops.ts has the real ones), so each way is
 * tested on any OS. Every way leaves the running app as it was when it fails before the swap.
 * - AppImage: the verified copy already sits beside the file; it takes the file's mode and is
 *   renamed over it (atomic on one file system), the folder synced; then the new file starts.
 * - Windows (per-user NSIS): the installer runs silently (`/S`) and the app quits so the
 *   installer can replace its files.
 * - macOS: the verified zip is extracted beside the bundle, then the bundle is swapped by two
 *   renames, as Squirrel.Mac does; a failed second rename puts the old bundle back.
 * - .deb: no privilege of our own: the user is told where the verified package is and how to
 *   install it.
 */
import { basename, dirname, join } from 'node:path';
import type { PackageKind } from './app-target.js';
import { SelfUpdateError } from './self-update-error.js';

export interface HandOverOps {
  stat(path: string): Promise<{ mode: number }>;
  chmod(path: string, mode: number): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  rm(path: string): Promise<void>;
  /** fsync of a folder, so a rename in it survives a crash. */
  syncDir(dir: string): Promise<void>;
  readdir(dir: string): Promise<string[]>;
  /** Extracts a zip into a new folder (macOS: `ditto -x -k`). */
  extractZip(zip: string, intoDir: string): Promise<void>;
  /** Starts a program that outlives the app; resolves once it started. */
  spawnDetached(file: string, args: readonly string[]): Promise<void>;
  /** Quits the app (through its ordered shutdown). */
  quit(): void;
}

export type HandOverResult =
  | { readonly kind: 'restarting' }
  | { readonly kind: 'installed-on-restart'; readonly warning: string }
  | { readonly kind: 'manual'; readonly path: string; readonly command: string };

export interface HandOverInput {
  readonly kind: PackageKind;
  /** The AppImage file, the .app bundle, or the install folder / executable. */
  readonly installPath: string;
  /** The verified copy (copyPathFor). */
  readonly copyPath: string;
  /** A fresh name beside the bundle for the extracted .app (macOS). */
  readonly unique: string;
}

/** Where the verified copy goes for each kind: beside an AppImage (one rename), else workDir. */
export function copyPathFor(
  kind: PackageKind,
  installPath: string,
  workDir: string,
  file: string,
  unique: string,
): string {
  if (kind === 'appimage') return join(dirname(installPath), `.${basename(installPath)}.${unique}`);
  return join(workDir, `${unique}-${file}`);
}

function failed(message: string, cause: unknown): SelfUpdateError {
  return new SelfUpdateError('HAND_OVER_FAILED', message, { cause });
}

async function appImage(input: HandOverInput, ops: HandOverOps): Promise<HandOverResult> {
  try {
    const { mode } = await ops.stat(input.installPath);
    await ops.chmod(input.copyPath, mode & 0o7777);
    await ops.rename(input.copyPath, input.installPath);
  } catch (cause) {
    await ops.rm(input.copyPath).catch(() => undefined);
    throw failed('the AppImage could not be replaced; the running version stays', cause);
  }
  await ops.syncDir(dirname(input.installPath));
  return relaunch(input.installPath, [], ops);
}

async function relaunch(
  file: string,
  args: readonly string[],
  ops: HandOverOps,
): Promise<HandOverResult> {
  try {
    await ops.spawnDetached(file, args);
  } catch (error) {
    return {
      kind: 'installed-on-restart',
      warning: `installed; it starts the next time the app starts (${String(error)})`,
    };
  }
  ops.quit();
  return { kind: 'restarting' };
}

async function nsis(input: HandOverInput, ops: HandOverOps): Promise<HandOverResult> {
  try {
    // NSIS: /S is the silent install; per-user, so no elevation prompt (electron-builder.yml).
    await ops.spawnDetached(input.copyPath, ['/S']);
  } catch (cause) {
    await ops.rm(input.copyPath).catch(() => undefined);
    throw failed('the installer could not start; the running version stays', cause);
  }
  ops.quit();
  return { kind: 'restarting' };
}

async function macZip(input: HandOverInput, ops: HandOverOps): Promise<HandOverResult> {
  const parent = dirname(input.installPath);
  const staging = join(parent, `.${input.unique}`);
  const backup = join(parent, `.${basename(input.installPath)}.${input.unique}.old`);
  try {
    await ops.extractZip(input.copyPath, staging);
    const apps = (await ops.readdir(staging)).filter((name) => name.endsWith('.app'));
    if (apps.length !== 1 || apps[0] === undefined) throw new Error('the zip holds no single .app');
    await ops.rename(input.installPath, backup);
    try {
      await ops.rename(join(staging, apps[0]), input.installPath);
    } catch (cause) {
      await ops.rename(backup, input.installPath);
      throw cause;
    }
  } catch (cause) {
    await ops.rm(staging).catch(() => undefined);
    throw failed('the app bundle could not be replaced; the running version stays', cause);
  } finally {
    await ops.rm(input.copyPath).catch(() => undefined);
  }
  await ops.rm(staging).catch(() => undefined);
  await ops.rm(backup).catch(() => undefined);
  await ops.syncDir(parent);
  return relaunch('/usr/bin/open', ['-n', input.installPath], ops);
}

/** Quotes a path for a POSIX shell command shown to the user. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function handOver(input: HandOverInput, ops: HandOverOps): Promise<HandOverResult> {
  switch (input.kind) {
    case 'appimage':
      return appImage(input, ops);
    case 'nsis':
      return nsis(input, ops);
    case 'mac-zip':
      return macZip(input, ops);
    case 'deb':
      return Promise.resolve({
        kind: 'manual',
        path: input.copyPath,
        command: `sudo apt install ${shellQuote(input.copyPath)}`,
      });
  }
}
