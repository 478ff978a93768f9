import { describe, expect, it, vi } from 'vitest';
import { createSettingsService, type SettingsServiceDeps } from '#app/settings/settings-service.js';
import { DEFAULT_SETTINGS, memorySettings } from '#app/settings/settings.js';
import { memoryTrustedRoot } from '#app/settings/trusted-root.js';
import type { SettingsInput } from '#preload/ipc-contract.js';
import { roleKeys, signedRoot } from '#test/tuf-metadata-kit.js';

const KEY = 'ab'.repeat(32);

function setup(overrides: Partial<SettingsServiceDeps> = {}) {
  const store = memorySettings({ ...DEFAULT_SETTINGS });
  let kept: string | null = null;
  const order: string[] = [];
  const deps: SettingsServiceDeps = {
    store,
    secrets: {
      load: () => kept,
      save: (key) => {
        kept = key;
        order.push('key');
        return true;
      },
    },
    machineKeyStorage: 'Kept encrypted.',
    restart: vi.fn(() => {
      order.push(`restart:${store.get('baseUrl')}`);
      return Promise.resolve();
    }),
    setPaused: vi.fn((paused: boolean) => {
      order.push(`paused:${paused}`);
      store.set('paused', paused);
    }),
    applyStartAtLogin: vi.fn(() => Promise.resolve()),
    registryLabel: () => 'updates.example.com',
    ...overrides,
  };
  return { store, deps, order, service: createSettingsService(deps), kept: () => kept };
}

const leaveDemo: SettingsInput = {
  registryUrl: 'https://updates.example.com',
  pinnedKeys: [KEY],
  machineKey: 'mk_secret',
  checkIntervalMinutes: 30,
  paused: false,
  startAtLogin: false,
  requireNonce: false,
  updatePolicy: 'auto',
  selfUpdate: 'ask',
  minimiseToBackground: true,
};

describe('settings service', () => {
  it('shows the stored settings, never the machine key itself', () => {
    const { service } = setup();
    expect(service.get()).toEqual({
      registryUrl: '',
      pinnedKeys: [],
      machineKeySet: false,
      machineKeyStorage: 'Kept encrypted.',
      checkIntervalMinutes: 60,
      paused: false,
      startAtLogin: false,
      startAtLoginAvailable: true,
      requireNonce: false,
      updatePolicy: 'auto',
      selfUpdate: 'ask',
      minimiseToBackground: true,
    });
  });

  it('stores the policy, self-update and background choices without restarting the core', async () => {
    const { service, store, deps } = setup();
    const demo = { ...leaveDemo, registryUrl: '', pinnedKeys: [], machineKey: '' };
    const answer = await service.save({
      ...demo,
      checkIntervalMinutes: 60,
      updatePolicy: 'ask',
      selfUpdate: 'auto',
      minimiseToBackground: false,
    });
    expect(answer).toMatchObject({
      ok: true,
      words: 'Saved.',
      settings: { updatePolicy: 'ask', selfUpdate: 'auto', minimiseToBackground: false },
    });
    expect(store.get('updatePolicy')).toBe('ask');
    expect(store.get('selfUpdate')).toBe('auto');
    expect(store.get('minimiseToBackground')).toBe(false);
    expect(deps.restart).not.toHaveBeenCalled();
  });

  it('asking for a nonce (or no longer) restarts the core on it', async () => {
    const { service, store, deps } = setup();
    const demo = { ...leaveDemo, registryUrl: '', pinnedKeys: [], machineKey: '' };
    await service.save({ ...demo, checkIntervalMinutes: 60 });
    expect(deps.restart).not.toHaveBeenCalled();
    const answer = await service.save({ ...demo, checkIntervalMinutes: 60, requireNonce: true });
    expect(answer).toMatchObject({ ok: true, settings: { requireNonce: true } });
    expect(store.get('requireNonce')).toBe(true);
    expect(deps.restart).toHaveBeenCalledTimes(1);
    await service.save({ ...demo, checkIntervalMinutes: 60, requireNonce: false });
    expect(deps.restart).toHaveBeenCalledTimes(2);
  });

  it('leaving the demo: stores the registry, keeps the key, then restarts the core on it', async () => {
    const { service, store, order, kept } = setup();
    const answer = await service.save(leaveDemo);
    expect(answer).toEqual({
      ok: true,
      words: 'Saved. The updater restarted on updates.example.com.',
      settings: expect.objectContaining({
        registryUrl: 'https://updates.example.com',
        pinnedKeys: [KEY],
        machineKeySet: true,
        checkIntervalMinutes: 30,
      }) as unknown,
    });
    expect(store.get('checkIntervalMs')).toBe(1_800_000);
    expect(kept()).toBe('mk_secret');
    // The key is kept before the restart reads it.
    expect(order).toEqual(['key', 'restart:https://updates.example.com', 'paused:false']);
    expect(JSON.stringify(answer)).not.toContain('mk_secret');
  });

  it('a refused input changes nothing and restarts nothing', async () => {
    const { service, store, deps } = setup();
    const answer = await service.save({ ...leaveDemo, registryUrl: 'http://updates.example.com' });
    expect(answer).toEqual({
      ok: false,
      problems: [
        {
          field: 'registryUrl',
          words: 'The address must start with https:// (plain http only on this computer).',
        },
      ],
    });
    expect(store.get('baseUrl')).toBe('');
    expect(deps.restart).not.toHaveBeenCalled();
  });

  it('pause alone applies without a restart', async () => {
    const { service, deps, store } = setup();
    store.set('checkIntervalMs', 1_800_000);
    const answer = await service.save({
      ...leaveDemo,
      registryUrl: '',
      machineKey: '',
      paused: true,
    });
    expect(answer).toMatchObject({ ok: true, words: 'Saved.' });
    expect(deps.restart).not.toHaveBeenCalled();
    expect(deps.setPaused).toHaveBeenCalledWith(true);
  });

  it('back to the demo registry from a configured one', async () => {
    const { service, store } = setup();
    await service.save(leaveDemo);
    const answer = await service.save({ ...leaveDemo, registryUrl: '', machineKey: '' });
    expect(answer).toMatchObject({
      ok: true,
      words: 'Saved. The updater restarted on the demo registry.',
    });
    expect(store.get('baseUrl')).toBe('');
    expect(store.get('pinnedKeys')).toEqual([]);
  });

  it('start at login is applied, and stays off when applying it failed', async () => {
    const { service, store, deps } = setup();
    await service.save({ ...leaveDemo, startAtLogin: true });
    expect(deps.applyStartAtLogin).toHaveBeenCalledWith(true);
    expect(store.get('startAtLogin')).toBe(true);
    const failing = setup({ applyStartAtLogin: () => Promise.reject(new Error('denied')) });
    const answer = await failing.service.save({ ...leaveDemo, startAtLogin: true });
    expect(answer).toMatchObject({ ok: true });
    expect(answer.ok && answer.words).toContain('Start at login could not be changed');
    expect(failing.store.get('startAtLogin')).toBe(false);
  });

  it('without start at login (the web window): shown unavailable, and refused when asked for', async () => {
    const { applyStartAtLogin: _ignored, ...rest } = setup().deps;
    const service = createSettingsService(rest);
    expect(service.get().startAtLoginAvailable).toBe(false);
    const answer = await service.save({ ...leaveDemo, startAtLogin: true });
    expect(answer).toMatchObject({ ok: false, problems: [{ field: 'startAtLogin' }] });
  });

  it('a key that could be kept in memory only is said so, in the storage words', async () => {
    const { service } = setup({ secrets: { load: () => null, save: () => false } });
    const answer = await service.save(leaveDemo);
    expect(answer.ok && answer.words).toBe(
      'Saved. The updater restarted on updates.example.com. Kept encrypted.',
    );
  });

  it('two saves run one after the other', async () => {
    let release: () => void = () => undefined;
    const restarts: string[] = [];
    const { service, store } = setup({
      restart: () => {
        restarts.push(store.get('baseUrl'));
        return restarts.length === 1 ? new Promise<void>((r) => (release = r)) : Promise.resolve();
      },
    });
    const first = service.save(leaveDemo);
    const second = service.save({
      ...leaveDemo,
      registryUrl: 'https://other.example.com',
      machineKey: '',
    });
    await Promise.resolve();
    expect(restarts).toEqual(['https://updates.example.com']);
    release();
    await Promise.all([first, second]);
    expect(restarts).toEqual(['https://updates.example.com', 'https://other.example.com']);
  });
});

describe('settings service: the trusted root', () => {
  const rootBytes = signedRoot(roleKeys(), 2, Date.UTC(2026, 10, 1));
  const rootText = new TextDecoder().decode(rootBytes);

  it('keeps an accepted root, restarts the core on it and says one is kept', async () => {
    const trustedRoot = memoryTrustedRoot();
    const { service, deps, order } = setup({ trustedRoot });
    const answer = await service.save({ ...leaveDemo, pinnedKeys: [], trustedRoot: rootText });
    expect(answer.ok).toBe(true);
    expect(trustedRoot.load()).toEqual(rootBytes);
    expect(deps.restart).toHaveBeenCalledTimes(1);
    expect(order).toContain('restart:https://updates.example.com');
    expect(answer.ok && answer.settings.trustedRootKept).toContain('version 2');
    expect(service.get().trustedRootKept).toContain('A trusted root is kept');
  });

  it('refuses a bad root by its field and stores nothing', async () => {
    const trustedRoot = memoryTrustedRoot();
    const { service, store, deps } = setup({ trustedRoot });
    const answer = await service.save({ ...leaveDemo, trustedRoot: '{"signed":{}}' });
    expect(answer.ok).toBe(false);
    expect(!answer.ok && answer.problems.map((p) => p.field)).toEqual(['trustedRoot']);
    expect(trustedRoot.load()).toBeNull();
    expect(store.get('baseUrl')).toBe('');
    expect(deps.restart).not.toHaveBeenCalled();
  });

  it('forgets a kept root when asked: the core restarts without it, and pinned keys are needed again', async () => {
    const trustedRoot = memoryTrustedRoot();
    const { service, deps } = setup({ trustedRoot });
    await service.save({ ...leaveDemo, pinnedKeys: [], trustedRoot: rootText });
    const keyless = await service.save({ ...leaveDemo, pinnedKeys: [], forgetTrustedRoot: true });
    expect(!keyless.ok && keyless.problems.map((p) => p.field)).toEqual(['pinnedKeys']);
    expect(trustedRoot.load()).toEqual(rootBytes);
    const answer = await service.save({ ...leaveDemo, forgetTrustedRoot: true });
    expect(answer.ok).toBe(true);
    expect(trustedRoot.load()).toBeNull();
    expect(deps.restart).toHaveBeenCalledTimes(2);
    expect(answer.ok && answer.settings.trustedRootKept).toBe('');
  });

  it('a kept root never carries over to another registry unasked', async () => {
    const trustedRoot = memoryTrustedRoot();
    const { service, store, deps } = setup({ trustedRoot });
    await service.save({ ...leaveDemo, pinnedKeys: [], trustedRoot: rootText });
    const other = { ...leaveDemo, registryUrl: 'https://other.example.com' };
    const moved = await service.save(other);
    expect(!moved.ok && moved.problems).toEqual([
      {
        field: 'trustedRoot',
        words:
          'The kept root belongs to https://updates.example.com: give this registry\'s root.json, or tick "Forget the kept root".',
      },
    ]);
    const toDemo = await service.save({ ...leaveDemo, registryUrl: '' });
    expect(!toDemo.ok && toDemo.problems[0]?.words).toContain('to use the demo registry');
    expect(store.get('baseUrl')).toBe('https://updates.example.com');
    expect(deps.restart).toHaveBeenCalledTimes(1);
    // Its own root for the new address, or forgetting the old one, is accepted.
    expect((await service.save({ ...other, trustedRoot: rootText })).ok).toBe(true);
    expect((await service.save({ ...leaveDemo, forgetTrustedRoot: true })).ok).toBe(true);
    expect(trustedRoot.load()).toBeNull();
  });

  it('refuses a new root and forgetting the kept one together', async () => {
    const trustedRoot = memoryTrustedRoot();
    const { service } = setup({ trustedRoot });
    await service.save({ ...leaveDemo, pinnedKeys: [], trustedRoot: rootText });
    const both = { ...leaveDemo, trustedRoot: rootText, forgetTrustedRoot: true };
    const answer = await service.save(both);
    expect(!answer.ok && answer.problems).toEqual([
      { field: 'trustedRoot', words: 'Give a new root or forget the kept one, not both.' },
    ]);
    expect(trustedRoot.load()).toEqual(rootBytes);
  });

  it('refuses a root where none can be kept', async () => {
    const { service } = setup();
    const answer = await service.save({ ...leaveDemo, trustedRoot: rootText });
    expect(!answer.ok && answer.problems).toEqual([
      { field: 'trustedRoot', words: 'This window cannot keep a trusted root.' },
    ]);
  });
});
