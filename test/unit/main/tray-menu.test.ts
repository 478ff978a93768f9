import { describeError } from '#app/status/refusal-words.js';
import { describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => ({}));

import type { MenuItemConstructorOptions } from 'electron';
import { trayMenuTemplate, trayTooltip, type TrayActions } from '#main/tray-menu.js';
import { initialStatus } from '#app/status/status-model.js';
import type { AppStatus, ProgressView } from '#preload/ipc-contract.js';

function actions(): TrayActions & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    checkNow: () => calls.push('check'),
    cancel: () => calls.push('cancel'),
    open: () => calls.push('open'),
    openSettings: () => calls.push('settings'),
    setPaused: (p) => calls.push(`paused:${String(p)}`),
    quit: () => calls.push('quit'),
  };
}

function item(template: MenuItemConstructorOptions[], id: string): MenuItemConstructorOptions {
  const found = template.find((entry) => entry.id === id);
  if (found === undefined) throw new Error(`no item ${id}`);
  return found;
}

function ids(template: MenuItemConstructorOptions[]): (string | undefined)[] {
  return template.filter((e) => e.type !== 'separator').map((e) => e.id);
}

function click(entry: MenuItemConstructorOptions): void {
  (entry.click as () => void)();
}

const idle: AppStatus = { ...initialStatus('Demo registry'), installedVersion: '1.2.0' };
const progress = (bytes: number, total: number, targetVersion: string | null): ProgressView => ({
  bytes,
  total,
  targetVersion,
  bytesPerSecond: null,
  remainingMs: null,
});
const downloading: AppStatus = {
  ...idle,
  phase: 'downloading',
  progress: progress(42, 100, '3.0.0'),
};
const menu = (status: AppStatus, a = actions()) => trayMenuTemplate(status, a, '0.1.0');

describe('tray menu per state', () => {
  it('idle: status, installed release, Check now, Open, Settings…, Pause, version, Quit; no Cancel', () => {
    expect(ids(menu(idle))).toEqual([
      'status',
      'installed',
      'check-now',
      'open',
      'settings',
      'pause',
      'version',
      'quit',
    ]);
    expect(item(menu(idle), 'status').label).toBe('Up to date (1.2.0)');
    expect(item(menu(idle), 'check-now').enabled).toBe(true);
  });

  it('shows the installed release and the registry in a disabled line', () => {
    const line = item(menu(idle), 'installed');
    expect(line.label).toBe('Installed: 1.2.0 · Demo registry');
    expect(line.enabled).toBe(false);
    expect(item(menu({ ...idle, installedVersion: null }), 'installed').label).toBe(
      'Installed: none yet · Demo registry',
    );
  });

  it("shows the app's own version", () => {
    expect(item(menu(idle), 'version')).toMatchObject({
      label: 'Verified Updater 0.1.0',
      enabled: false,
    });
  });

  it('checking: says so and disables Check now, no Cancel', () => {
    const template = menu({ ...idle, phase: 'checking' });
    expect(item(template, 'status').label).toBe('Checking for updates…');
    expect(item(template, 'check-now').enabled).toBe(false);
    expect(ids(template)).not.toContain('cancel');
  });

  it('downloading: the version and the percentage, with Cancel', () => {
    const a = actions();
    const template = menu(downloading, a);
    expect(item(template, 'status').label).toBe('Downloading 3.0.0 — 42 %');
    expect(item(template, 'check-now').enabled).toBe(false);
    click(item(template, 'cancel'));
    expect(a.calls).toEqual(['cancel']);
  });

  it('downloading before the plan names a version', () => {
    const template = menu({ ...downloading, progress: progress(0, 0, null) });
    expect(item(template, 'status').label).toBe('Downloading — 100 %');
  });

  it('installing: the version, and no Cancel (a commit runs to its end)', () => {
    const template = menu({ ...downloading, phase: 'applying' });
    expect(item(template, 'status').label).toBe('Installing 3.0.0…');
    expect(ids(template)).not.toContain('cancel');
  });

  it('failed: the error code', () => {
    const failed: AppStatus = { ...idle, lastError: describeError('SIGNATURE_INVALID', 'x') };
    expect(item(menu(failed), 'status').label).toBe('Update failed (SIGNATURE_INVALID)');
  });

  it('paused: says so, with a checked checkbox that toggles', () => {
    const a = actions();
    const paused = menu({ ...idle, paused: true }, a);
    expect(item(paused, 'status').label).toBe('Updates paused');
    expect(item(paused, 'pause').checked).toBe(true);
    click(item(paused, 'pause'));
    click(item(menu(idle, a), 'pause'));
    expect(a.calls).toEqual(['paused:false', 'paused:true']);
  });

  it('nothing installed yet', () => {
    expect(item(menu({ ...idle, installedVersion: null }), 'status').label).toBe(
      'Nothing installed yet',
    );
  });

  it('routes Check now, Open, Settings… and Quit to their actions', () => {
    const a = actions();
    const template = menu(idle, a);
    for (const id of ['check-now', 'open', 'settings', 'quit']) click(item(template, id));
    expect(a.calls).toEqual(['check', 'open', 'settings', 'quit']);
  });

  it('puts the status line in the tooltip', () => {
    expect(trayTooltip(downloading)).toBe('Verified Updater: Downloading 3.0.0 — 42 %');
  });
});
