import { describe, expect, it, vi } from 'vitest';
import type { AppController } from '#app/app-controller.js';
import { bridgeEvents, bridgeHandlers, runOperation } from '#app/bridge-handlers.js';
import type { SettingsService } from '#app/settings/settings-service.js';
import { OPERATION_NAMES, type SettingsInput, type SettingsView } from '#preload/ipc-contract.js';

const VIEW: SettingsView = {
  registryUrl: '',
  pinnedKeys: [],
  machineKeySet: false,
  machineKeyStorage: 'memory',
  checkIntervalMinutes: 60,
  paused: false,
  startAtLogin: false,
  startAtLoginAvailable: true,
  requireNonce: false,
  updatePolicy: 'auto',
  selfUpdate: 'ask',
  minimiseToBackground: true,
};
const INPUT: SettingsInput = {
  registryUrl: '',
  pinnedKeys: [],
  machineKey: '',
  checkIntervalMinutes: 30,
  paused: false,
  startAtLogin: false,
  requireNonce: false,
  updatePolicy: 'auto',
  selfUpdate: 'ask',
  minimiseToBackground: true,
};

function fakeSettings(): SettingsService & { saved: SettingsInput[] } {
  const saved: SettingsInput[] = [];
  return {
    saved,
    get: () => VIEW,
    save: (input) => {
      saved.push(input);
      return Promise.resolve({ ok: true, words: 'Saved.', settings: VIEW });
    },
  };
}

function fakeController(): AppController & {
  listeners: Set<(s: unknown) => void>;
  checks: ReturnType<typeof vi.fn>;
  paused: ReturnType<typeof vi.fn>;
} {
  const listeners = new Set<(s: unknown) => void>();
  const checks = vi.fn(() => Promise.resolve());
  const paused = vi.fn();
  return {
    listeners,
    checks,
    paused,
    getStatus: vi.fn(() => ({ phase: 'idle' }) as never),
    checkNow: checks,
    getActivity: vi.fn(() => Promise.resolve({ state: 'offline', message: 'x' }) as never),
    onStatus: (listener) => {
      listeners.add(listener as (s: unknown) => void);
      return () => listeners.delete(listener as (s: unknown) => void);
    },
    setPaused: paused,
    cancel: () => Promise.resolve({ ok: true, words: 'cancelled' }),
    rollBack: () => Promise.resolve({ ok: true, words: 'rolled back' }),
    verify: () => Promise.resolve({ ok: true, words: 'verified' }),
    openLog: () => Promise.resolve({ ok: true, words: 'opened' }),
    installNow: () => Promise.resolve({ ok: true, words: 'installing' }),
    skipVersion: (version) => ({ ok: true, words: `skipped ${version}` }),
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

describe('bridge handlers', () => {
  it('answers every operation of the contract from the controller', async () => {
    const c = fakeController();
    const handlers = bridgeHandlers(c, fakeSettings());
    expect(Object.keys(handlers).sort()).toEqual([...OPERATION_NAMES].sort());
    await expect(runOperation(handlers, 'getStatus', [])).resolves.toEqual({ phase: 'idle' });
    await runOperation(handlers, 'checkNow', []);
    expect(c.checks).toHaveBeenCalledTimes(1);
  });

  it('answers the actions of the window from the controller', async () => {
    const c = fakeController();
    const handlers = bridgeHandlers(c, fakeSettings());
    await expect(runOperation(handlers, 'cancel', [])).resolves.toEqual({
      ok: true,
      words: 'cancelled',
    });
    await expect(runOperation(handlers, 'rollBack', [])).resolves.toMatchObject({ ok: true });
    await expect(runOperation(handlers, 'verify', [])).resolves.toMatchObject({ ok: true });
    await expect(runOperation(handlers, 'openLog', [])).resolves.toMatchObject({ ok: true });
    await runOperation(handlers, 'setPaused', [true]);
    expect(c.paused).toHaveBeenCalledWith(true);
  });

  it('BAD_ARGUMENTS: setPaused takes exactly one boolean', () => {
    const c = fakeController();
    for (const args of [[], ['yes'], [1], [true, false], [null]]) {
      expect(runOperation(bridgeHandlers(c, fakeSettings()), 'setPaused', args)).toBeNull();
    }
    expect(c.paused).not.toHaveBeenCalled();
  });

  it('BAD_ARGUMENTS: refuses arguments the contract does not take, without running anything', () => {
    const c = fakeController();
    expect(runOperation(bridgeHandlers(c, fakeSettings()), 'checkNow', ['extra'])).toBeNull();
    expect(c.checks).not.toHaveBeenCalled();
  });

  it('answers the settings operations from the settings service', async () => {
    const settings = fakeSettings();
    const handlers = bridgeHandlers(fakeController(), settings);
    await expect(runOperation(handlers, 'getSettings', [])).resolves.toEqual(VIEW);
    await expect(runOperation(handlers, 'saveSettings', [INPUT])).resolves.toMatchObject({
      ok: true,
    });
    expect(settings.saved).toEqual([INPUT]);
  });

  it('BAD_ARGUMENTS: saveSettings takes exactly one SettingsInput of the right shape', () => {
    const settings = fakeSettings();
    const handlers = bridgeHandlers(fakeController(), settings);
    const refused: unknown[][] = [
      [],
      [INPUT, INPUT],
      ['{}'],
      [null],
      [[]],
      [{ ...INPUT, extra: 1 }],
      [{ ...INPUT, registryUrl: 5 }],
      [{ ...INPUT, pinnedKeys: 'abc' }],
      [{ ...INPUT, pinnedKeys: [1] }],
      [{ ...INPUT, pinnedKeys: Array.from({ length: 65 }, () => 'k') }],
      [{ ...INPUT, machineKey: 'x'.repeat(4097) }],
      [{ ...INPUT, checkIntervalMinutes: Number.NaN }],
      [{ ...INPUT, checkIntervalMinutes: '30' }],
      [{ ...INPUT, paused: 'no' }],
      [{ registryUrl: '', pinnedKeys: [], machineKey: '', checkIntervalMinutes: 1, paused: false }],
    ];
    for (const args of refused) expect(runOperation(handlers, 'saveSettings', args)).toBeNull();
    expect(settings.saved).toEqual([]);
  });

  it('saveSettings takes an optional trusted root text, bounded, and nothing else in its place', async () => {
    const settings = fakeSettings();
    const handlers = bridgeHandlers(fakeController(), settings);
    const withRoot = { ...INPUT, trustedRoot: '{"signed":{}}' };
    await expect(runOperation(handlers, 'saveSettings', [withRoot])).resolves.toMatchObject({
      ok: true,
    });
    expect(settings.saved).toEqual([withRoot]);
    for (const trustedRoot of [5, null, 'x'.repeat(32 * 1024 + 1)]) {
      expect(runOperation(handlers, 'saveSettings', [{ ...INPUT, trustedRoot }])).toBeNull();
    }
    expect(settings.saved).toHaveLength(1);
  });

  it('saveSettings takes an optional boolean forgetTrustedRoot, beside a root or alone', async () => {
    const settings = fakeSettings();
    const handlers = bridgeHandlers(fakeController(), settings);
    const forget = { ...INPUT, forgetTrustedRoot: true };
    const both = { ...INPUT, trustedRoot: '', forgetTrustedRoot: false };
    for (const input of [forget, both]) {
      await expect(runOperation(handlers, 'saveSettings', [input])).resolves.toMatchObject({
        ok: true,
      });
    }
    expect(settings.saved).toEqual([forget, both]);
    for (const forgetTrustedRoot of ['yes', 1, null]) {
      const bad = { ...INPUT, forgetTrustedRoot };
      expect(runOperation(handlers, 'saveSettings', [bad])).toBeNull();
    }
    expect(runOperation(handlers, 'saveSettings', [{ ...INPUT, forgetRoot: true }])).toBeNull();
    expect(settings.saved).toHaveLength(2);
  });

  it('turns a handler that throws into a rejection, never a synchronous throw', async () => {
    const c = fakeController();
    c.getStatus = () => {
      throw new Error('boom');
    };
    await expect(runOperation(bridgeHandlers(c, fakeSettings()), 'getStatus', [])).rejects.toThrow(
      'boom',
    );
  });

  it('forwards the status push event and unsubscribes', () => {
    const c = fakeController();
    const seen: unknown[] = [];
    const off = bridgeEvents(c).status((s) => seen.push(s));
    for (const l of c.listeners) l({ phase: 'checking' });
    off();
    expect(seen).toEqual([{ phase: 'checking' }]);
    expect(c.listeners.size).toBe(0);
  });
});
