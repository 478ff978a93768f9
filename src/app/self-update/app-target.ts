/**
 * The app's own installers as targets of the registry (docs/RELEASING.md "Self-update
 * targets"): `app/<platform>-<arch>/<file>`, with `<platform>-<arch>` as Node names them
 * (`linux-x64`, `win32-x64`, `darwin-arm64`, or `darwin-universal`) and `<file>` the
 * electron-builder artifact name `verified-updater-<version>-<os>-<arch>.<ext>`. The name is
 * part of the signed manifest, so the version read from it is signed too. Pure.
 */
import semver from 'semver';

/** How the running app was installed, and so which package replaces it. */
export type PackageKind = 'appimage' | 'nsis' | 'mac-zip' | 'deb';

export interface AppTarget {
  /** The target's name in the release (`app/linux-x64/verified-updater-…`). */
  readonly name: string;
  readonly version: string;
  readonly kind: PackageKind;
}

export interface RunningApp {
  readonly version: string;
  readonly platform: NodeJS.Platform;
  readonly arch: string;
  readonly kind: PackageKind;
}

const FILE =
  /^verified-updater-(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)-(linux|win|mac)-[0-9A-Za-z_]+\.(AppImage|exe|zip|deb)$/;

const KIND_OF_EXTENSION: Readonly<Record<string, PackageKind>> = {
  AppImage: 'appimage',
  exe: 'nsis',
  zip: 'mac-zip',
  deb: 'deb',
};

/** The folders of the release that may hold this app's installers. */
export function appTargetDirs(platform: NodeJS.Platform, arch: string): string[] {
  const dirs = [`app/${platform}-${arch}`];
  // One universal macOS build serves both architectures (electron-builder.yml, mac.target).
  if (platform === 'darwin') dirs.push('app/darwin-universal');
  return dirs;
}

/** Reads a target name; null for anything that is not one of our installers. */
export function parseAppTarget(name: string): AppTarget | null {
  const slash = name.lastIndexOf('/');
  const match = FILE.exec(name.slice(slash + 1));
  if (match === null || !name.startsWith('app/')) return null;
  const [, version, , extension] = match;
  const kind = KIND_OF_EXTENSION[extension ?? ''];
  if (version === undefined || kind === undefined || semver.valid(version) === null) return null;
  return { name, version, kind };
}

/**
 * The newest installer for this app above the running version, of the same kind (an AppImage
 * replaces an AppImage, never a .deb), in this platform's folders; null when there is none.
 * Never a downgrade, never the same version.
 */
export function selectAppUpdate(names: readonly string[], running: RunningApp): AppTarget | null {
  const dirs = appTargetDirs(running.platform, running.arch);
  let best: AppTarget | null = null;
  for (const name of names) {
    if (
      !dirs.some((dir) => name.startsWith(`${dir}/`) && !name.slice(dir.length + 1).includes('/'))
    )
      continue;
    const target = parseAppTarget(name);
    if (target === null || target.kind !== running.kind) continue;
    if (!semver.gt(target.version, running.version)) continue;
    if (best === null || semver.gt(target.version, best.version)) best = target;
  }
  return best;
}
