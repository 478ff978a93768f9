import { describe, expect, it } from 'vitest';
import {
  applyStartAtLogin,
  autostartEntry,
  quoteExecArgument,
  type LoginItemDeps,
} from '#main/login-item.js';
import { trayMenuPolicy } from '#main/tray-menu-policy.js';

function deps(platform: NodeJS.Platform) {
  const calls: string[] = [];
  const d: LoginItemDeps = {
    platform,
    setLoginItemSettings: (s) =>
      calls.push(`login-item ${String(s.openAtLogin)}${s.args ? ` ${s.args.join(' ')}` : ''}`),
    autostartDir: '/home/u/.config/autostart',
    executable: '/opt/Verified Updater/verified-updater',
    writeFile: (path, text) => {
      calls.push(`write ${path}\n${text}`);
      return Promise.resolve();
    },
    removeFile: (path) => {
      calls.push(`remove ${path}`);
      return Promise.resolve();
    },
  };
  return { d, calls };
}

describe('start at login', () => {
  it('uses the login item on macOS (which reports wasOpenedAtLogin instead of arguments)', async () => {
    const { d, calls } = deps('darwin');
    await applyStartAtLogin(true, d);
    await applyStartAtLogin(false, d);
    expect(calls).toEqual(['login-item true', 'login-item false']);
  });

  it('passes --hidden to the Windows login item, on and off alike', async () => {
    const { d, calls } = deps('win32');
    await applyStartAtLogin(true, d);
    await applyStartAtLogin(false, d);
    expect(calls).toEqual(['login-item true --hidden', 'login-item false --hidden']);
  });

  it('writes an XDG autostart entry on Linux, and removes it when turned off', async () => {
    const { d, calls } = deps('linux');
    await applyStartAtLogin(true, d);
    await applyStartAtLogin(false, d);
    expect(calls[0]).toBe(
      `write /home/u/.config/autostart/verified-updater.desktop\n${autostartEntry(d.executable)}`,
    );
    expect(calls[0]).toContain('Exec="/opt/Verified Updater/verified-updater" --hidden\n');
    expect(calls[1]).toBe('remove /home/u/.config/autostart/verified-updater.desktop');
  });

  it('quotes the Exec argument as the Desktop Entry spec says', () => {
    expect(quoteExecArgument('/a b/$x"`\\')).toBe('"/a b/\\$x\\"\\`\\\\"');
  });
});

describe('tray menu policy', () => {
  it('pops the menu up on right click on macOS (a set menu would open on left click too)', () => {
    expect(trayMenuPolicy('darwin')).toBe('pop-up-on-right-click');
  });

  it('sets the context menu on Windows and Linux', () => {
    expect(trayMenuPolicy('win32')).toBe('set-context-menu');
    expect(trayMenuPolicy('linux')).toBe('set-context-menu');
  });
});
