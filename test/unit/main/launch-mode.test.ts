import { describe, expect, it } from 'vitest';
import { closeAction, HIDDEN_ARGUMENT, launchedAtLogin, launchPlan } from '#main/launch-mode.js';

const byHand = { argv: ['/opt/verified-updater'], wasOpenedAtLogin: false };
const byLoginArg = { argv: ['/opt/verified-updater', HIDDEN_ARGUMENT], wasOpenedAtLogin: false };
const byMacLogin = { argv: ['/Applications/Verified Updater.app'], wasOpenedAtLogin: true };

describe('launch at login or by hand', () => {
  it('takes --hidden (login item, autostart entry) as a launch at login', () => {
    expect(launchedAtLogin(byLoginArg)).toBe(true);
  });

  it('takes macOS wasOpenedAtLogin as a launch at login', () => {
    expect(launchedAtLogin(byMacLogin)).toBe(true);
  });

  it('takes anything else as started by the user', () => {
    expect(launchedAtLogin(byHand)).toBe(false);
    expect(launchedAtLogin({ argv: ['x', '--hidden-extra'], wasOpenedAtLogin: false })).toBe(false);
  });
});

describe('launch plan', () => {
  it('shows the tray window when the user started the app', () => {
    expect(launchPlan({ ...byHand, trayAvailable: true })).toEqual({
      atLogin: false,
      windowStyle: 'tray',
      firstShow: 'show',
    });
  });

  it('stays in the tray at login', () => {
    expect(launchPlan({ ...byLoginArg, trayAvailable: true }).firstShow).toBe('stay-hidden');
    expect(launchPlan({ ...byMacLogin, trayAvailable: true }).firstShow).toBe('stay-hidden');
  });

  it('falls back to a normal window, shown, where no tray exists', () => {
    expect(launchPlan({ ...byHand, trayAvailable: false })).toEqual({
      atLogin: false,
      windowStyle: 'normal',
      firstShow: 'show',
    });
  });

  it('starts minimised at login where no tray exists, never invisible', () => {
    expect(launchPlan({ ...byLoginArg, trayAvailable: false }).firstShow).toBe('minimised');
  });
});

describe('closing the window', () => {
  it('hides the tray window', () => {
    expect(closeAction('tray', true)).toBe('hide');
    expect(closeAction('tray', false)).toBe('hide');
  });

  it('minimises a normal window to the background when the setting is on', () => {
    expect(closeAction('normal', true)).toBe('minimise');
  });

  it('quits from a normal window when the setting is off', () => {
    expect(closeAction('normal', false)).toBe('quit');
  });
});
