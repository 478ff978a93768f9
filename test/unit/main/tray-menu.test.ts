import { describeError } from '#app/status/refusal-words.js';
import { describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => ({}));

import type { MenuItemConstructorOptions } from 'electron';
import { trayMenuTemplate, trayTooltip, type TrayActions } from '#main/tray-menu.js';
import { initialStatus } from '#app/status/status-model.js';
import type { AppStatus } from '#preload/ipc-contract.js';

function actions(): TrayActions & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    checkNow: () => calls.push('check'),
    open: () => calls.push('open'),
    setPaused: (p) => calls.push(`paused:${String(p)}`),
    quit: () => calls.push('quit'),
  };
}

function item(template: MenuItemConstructorOptions[], id: string): MenuItemConstructorOptions {
  const found = template.find((entry) => entry.id === id);
  if (found === undefined) throw new Error(`no item ${id}`);
  return found;
}

function click(entry: MenuItemConstructorOptions): void {
  (entry.click as () => void)();
}

const idle: AppStatus = { ...initialStatus('Demo registry'), installedVersion: '1.2.0' };

describe('tray menu from state', () => {
  it('has a status line, Check for updates now, Open, Pause updates and Quit, in that order', () => {
    const template = trayMenuTemplate(idle, actions());
    const ids = template.filter((e) => e.type !== 'separator').map((e) => e.id);
    expect(ids).toEqual(['status', 'check-now', 'open', 'pause', 'quit']);
  });

  it('shows the registry and the installed version in a disabled status line', () => {
    const status = item(trayMenuTemplate(idle, actions()), 'status');
    expect(status.label).toBe('Demo registry: Up to date: 1.2.0');
    expect(status.enabled).toBe(false);
  });

  it('shows download progress and disables Check now while a run is in flight', () => {
    const busy: AppStatus = {
      ...idle,
      phase: 'downloading',
      progress: {
        bytes: 50,
        total: 200,
        targetVersion: '2.0.0',
        bytesPerSecond: null,
        remainingMs: null,
      },
    };
    const template = trayMenuTemplate(busy, actions());
    expect(item(template, 'status').label).toBe('Demo registry: Downloading update… 25%');
    expect(item(template, 'check-now').enabled).toBe(false);
  });

  it('shows the last error code', () => {
    const failed: AppStatus = { ...idle, lastError: describeError('SIGNATURE_INVALID', 'x') };
    expect(item(trayMenuTemplate(failed, actions()), 'status').label).toBe(
      'Demo registry: Update failed (SIGNATURE_INVALID)',
    );
  });

  it('reflects pause as a checked checkbox and toggles it', () => {
    const a = actions();
    const paused = trayMenuTemplate({ ...idle, paused: true }, a);
    expect(item(paused, 'pause').checked).toBe(true);
    click(item(paused, 'pause'));
    click(item(trayMenuTemplate(idle, a), 'pause'));
    expect(a.calls).toEqual(['paused:false', 'paused:true']);
  });

  it('routes Check now, Open and Quit to their actions', () => {
    const a = actions();
    const template = trayMenuTemplate(idle, a);
    click(item(template, 'check-now'));
    click(item(template, 'open'));
    click(item(template, 'quit'));
    expect(a.calls).toEqual(['check', 'open', 'quit']);
  });

  it('puts the status line in the tooltip', () => {
    expect(trayTooltip({ ...idle, phase: 'checking' })).toBe(
      'Verified Updater: Checking for updates…',
    );
  });
});
