import { describe, expect, it } from 'vitest';
import { isGnomeDesktop, needsWatcherProbe, trayAvailable } from '#main/tray-availability.js';
import {
  parseNameHasOwner,
  probeStatusNotifierWatcher,
  PROBE_COMMAND,
  WATCHER_BUS_NAME,
} from '#main/status-notifier-probe.js';

describe('tray availability', () => {
  it('always has a tray on macOS and Windows', () => {
    for (const platform of ['darwin', 'win32'] as const) {
      expect(
        trayAvailable({ platform, xdgCurrentDesktop: 'GNOME', statusNotifierWatcher: false }),
      ).toBe(true);
    }
  });

  it('has none on GNOME without a StatusNotifierWatcher (no AppIndicator extension)', () => {
    expect(
      trayAvailable({
        platform: 'linux',
        xdgCurrentDesktop: 'GNOME',
        statusNotifierWatcher: false,
      }),
    ).toBe(false);
  });

  it('counts GNOME with an unanswered probe as having none (a visible window is the safe side)', () => {
    expect(
      trayAvailable({ platform: 'linux', xdgCurrentDesktop: 'GNOME', statusNotifierWatcher: null }),
    ).toBe(false);
  });

  it('has one on GNOME with the AppIndicator extension (Ubuntu)', () => {
    expect(
      trayAvailable({
        platform: 'linux',
        xdgCurrentDesktop: 'ubuntu:GNOME',
        statusNotifierWatcher: true,
      }),
    ).toBe(true);
  });

  it('trusts other desktops (XEmbed fallback) even without a watcher', () => {
    for (const desktop of ['XFCE', 'KDE', 'X-Cinnamon', 'MATE', undefined]) {
      expect(
        trayAvailable({
          platform: 'linux',
          xdgCurrentDesktop: desktop,
          statusNotifierWatcher: false,
        }),
      ).toBe(true);
    }
  });

  it('reads GNOME from every XDG_CURRENT_DESKTOP spelling and nothing else', () => {
    expect(isGnomeDesktop('GNOME')).toBe(true);
    expect(isGnomeDesktop('ubuntu:GNOME')).toBe(true);
    expect(isGnomeDesktop('GNOME-Classic:GNOME')).toBe(true);
    expect(isGnomeDesktop('gnome-flashback')).toBe(true);
    expect(isGnomeDesktop('Budgie:GNOME')).toBe(true);
    expect(isGnomeDesktop('KDE')).toBe(false);
    expect(isGnomeDesktop('NOTGNOME')).toBe(false);
    expect(isGnomeDesktop(undefined)).toBe(false);
  });

  it('probes the bus only in a GNOME session on Linux', () => {
    expect(needsWatcherProbe('linux', 'GNOME')).toBe(true);
    expect(needsWatcherProbe('linux', 'KDE')).toBe(false);
    expect(needsWatcherProbe('win32', 'GNOME')).toBe(false);
  });
});

describe('StatusNotifierWatcher probe', () => {
  it('asks the bus whether the watcher name has an owner', async () => {
    const calls: string[] = [];
    const answer = await probeStatusNotifierWatcher((file, args) => {
      calls.push([file, ...args].join(' '));
      return Promise.resolve('method return time=1 sender=org.freedesktop.DBus\n   boolean true\n');
    });
    expect(answer).toBe(true);
    expect(calls).toEqual([[PROBE_COMMAND[0], ...PROBE_COMMAND[1]].join(' ')]);
    expect(calls[0]).toContain(`string:${WATCHER_BUS_NAME}`);
  });

  it('reads false', () => {
    expect(parseNameHasOwner('   boolean false\n')).toBe(false);
  });

  it('answers unknown when dbus-send fails or says something else', async () => {
    expect(await probeStatusNotifierWatcher(() => Promise.reject(new Error('ENOENT')))).toBeNull();
    expect(
      await probeStatusNotifierWatcher(() => Promise.resolve('Error org.freedesktop')),
    ).toBeNull();
  });
});
