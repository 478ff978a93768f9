import { describe, expect, it } from 'vitest';
import {
  appTargetDirs,
  parseAppTarget,
  selectAppUpdate,
  type RunningApp,
} from '#app/self-update/app-target.js';
import { macBundleOf, runningInstall } from '#app/self-update/running-install.js';
import { parseSelfUpdateMode } from '#app/self-update/self-update-mode.js';

const linux: RunningApp = { version: '1.0.0', platform: 'linux', arch: 'x64', kind: 'appimage' };
const img = (v: string, dir = 'app/linux-x64') =>
  `${dir}/verified-updater-${v}-linux-x86_64.AppImage`;

describe('app targets', () => {
  it('reads the version and kind from the signed name', () => {
    expect(parseAppTarget(img('2.0.0'))).toEqual({
      name: img('2.0.0'),
      version: '2.0.0',
      kind: 'appimage',
    });
    expect(parseAppTarget('app/win32-x64/verified-updater-2.0.0-win-x64.exe')?.kind).toBe('nsis');
    expect(parseAppTarget('app/linux-x64/verified-updater-2.0.0-linux-amd64.deb')?.kind).toBe(
      'deb',
    );
    expect(parseAppTarget('data/verified-updater-2.0.0-linux-x86_64.AppImage')).toBeNull();
    expect(parseAppTarget('app/linux-x64/other-2.0.0-linux-x86_64.AppImage')).toBeNull();
  });

  it('picks the newest above the running version', () => {
    expect(selectAppUpdate([img('1.5.0'), img('2.0.0'), img('1.9.9')], linux)?.version).toBe(
      '2.0.0',
    );
  });

  it('never downgrades and never reinstalls the running version', () => {
    expect(selectAppUpdate([img('0.9.0'), img('1.0.0')], linux)).toBeNull();
  });

  it('keeps to its own platform, architecture and package kind', () => {
    expect(selectAppUpdate([img('2.0.0', 'app/linux-arm64')], linux)).toBeNull();
    expect(
      selectAppUpdate(['app/linux-x64/verified-updater-2.0.0-linux-amd64.deb'], linux),
    ).toBeNull();
    expect(selectAppUpdate([img('2.0.0', 'app/linux-x64/nested')], linux)).toBeNull();
  });

  it('takes the universal macOS build on either architecture', () => {
    expect(appTargetDirs('darwin', 'arm64')).toEqual(['app/darwin-arm64', 'app/darwin-universal']);
    const mac: RunningApp = {
      version: '1.0.0',
      platform: 'darwin',
      arch: 'arm64',
      kind: 'mac-zip',
    };
    const name = 'app/darwin-universal/verified-updater-1.1.0-mac-universal.zip';
    expect(selectAppUpdate([name], mac)?.name).toBe(name);
  });
});

describe('running install', () => {
  it('is the AppImage file when run from one, else the deb install', () => {
    expect(
      runningInstall({
        platform: 'linux',
        execPath: '/tmp/.mount/x',
        appImage: '/home/u/V.AppImage',
      }),
    ).toEqual({ kind: 'appimage', path: '/home/u/V.AppImage' });
    expect(
      runningInstall({
        platform: 'linux',
        execPath: '/opt/V/verified-updater',
        appImage: undefined,
      })?.kind,
    ).toBe('deb');
  });

  it('is the install folder on Windows and the bundle on macOS', () => {
    expect(
      runningInstall({
        platform: 'win32',
        execPath: 'C:/Users/u/AppData/Local/Programs/v/V.exe',
        appImage: undefined,
      }),
    ).toEqual({ kind: 'nsis', path: 'C:/Users/u/AppData/Local/Programs/v' });
    expect(macBundleOf('/Applications/V.app/Contents/MacOS/V')).toBe('/Applications/V.app');
    expect(
      runningInstall({
        platform: 'darwin',
        execPath: '/usr/local/bin/electron',
        appImage: undefined,
      }),
    ).toBeNull();
  });
});

describe('self-update setting', () => {
  it('reads auto, ask and never, and asks for anything else', () => {
    expect(parseSelfUpdateMode('auto')).toBe('auto');
    expect(parseSelfUpdateMode('never')).toBe('never');
    expect(parseSelfUpdateMode('yes')).toBe('ask');
    expect(parseSelfUpdateMode(undefined)).toBe('ask');
  });
});
