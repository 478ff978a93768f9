/**
 * The settings schema, checked through `conf` (the Electron-free library electron-store is a
 * thin layer over), so the same JSON-schema validation runs without Electron.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Conf from 'conf';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_SETTINGS,
  MIN_CHECK_INTERVAL_MS,
  SETTINGS_SCHEMA,
  type AppSettings,
} from '#app/settings/settings.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function open(): Promise<{ store: Conf<AppSettings>; cwd: string }> {
  const cwd = await mkdtemp(join(tmpdir(), 'desktop-settings-'));
  dirs.push(cwd);
  const store = new Conf<AppSettings>({
    cwd,
    projectName: 'verified-updater-test',
    configName: 'settings',
    schema: SETTINGS_SCHEMA,
    defaults: DEFAULT_SETTINGS,
    clearInvalidConfig: false,
  });
  return { store, cwd };
}

describe('settings schema (electron-store / conf)', () => {
  it('defaults to the demo registry, no pinned key, hourly checks, not paused', async () => {
    const { store } = await open();
    expect(store.store).toEqual(DEFAULT_SETTINGS);
    expect(DEFAULT_SETTINGS).toMatchObject({ baseUrl: '', pinnedKeys: [], paused: false });
  });

  it('accepts an https registry with a pinned key', async () => {
    const { store } = await open();
    store.set('baseUrl', 'https://updates.example.com');
    store.set('pinnedKeys', ['ab'.repeat(32)]);
    expect(store.get('pinnedKeys')).toEqual(['ab'.repeat(32)]);
  });

  it('refuses a registry URL that is not http(s)', async () => {
    const { store } = await open();
    expect(() => store.set('baseUrl', 'file:///etc/passwd')).toThrow(/baseUrl/);
  });

  it('refuses a pinned key that is not 64 lowercase hex characters', async () => {
    const { store } = await open();
    expect(() => store.set('pinnedKeys', ['AB'.repeat(32)])).toThrow(/pinnedKeys/);
  });

  it('refuses a check interval under one minute', async () => {
    const { store } = await open();
    expect(() => store.set('checkIntervalMs', MIN_CHECK_INTERVAL_MS - 1)).toThrow(
      /checkIntervalMs/,
    );
  });

  it('refuses to open a hand-edited file that breaks the schema, instead of half-using it', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'desktop-settings-'));
    dirs.push(cwd);
    await writeFile(join(cwd, 'settings.json'), JSON.stringify({ checkIntervalMs: 5 }));
    expect(
      () =>
        new Conf<AppSettings>({
          cwd,
          projectName: 'verified-updater-test',
          configName: 'settings',
          schema: SETTINGS_SCHEMA,
          defaults: DEFAULT_SETTINGS,
          clearInvalidConfig: false,
        }),
    ).toThrow(/checkIntervalMs/);
  });
});
