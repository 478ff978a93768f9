/**
 * Opening the app's updater without Electron (src/app/open-updater.ts): the registry choice,
 * the refusal policy (a refused configuration runs a refusing updater, never exits) and the
 * controller wiring, with plain fakes for settings, secrets and the demo registry.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UpdateError } from '#core/errors.js';
import type { UpdateEvent } from '#core/events.js';
import type { UpdaterApi } from '#core/updater-api.js';
import type { DemoServer } from '#app/registry/first-run.js';
import {
  controllerFor,
  openUpdater,
  type OpenUpdaterDeps,
  type OpenedUpdater,
} from '#app/open-updater.js';
import { memorySettings, DEFAULT_SETTINGS } from '#app/settings/settings.js';

const KEY = 'ab'.repeat(32);

let dir: string;
let lines: string[];
const opened: OpenedUpdater[] = [];

function deps(overrides: Partial<OpenUpdaterDeps> = {}): OpenUpdaterDeps {
  return {
    settings: memorySettings({ ...DEFAULT_SETTINGS, baseUrl: 'https://updates.example' }),
    settingsRefusal: null,
    secrets: { load: () => 'machine-key', save: () => true },
    resourcesDir: join(dir, 'resources'),
    userDataDir: join(dir, 'userData'),
    startDemoServer: () => Promise.reject(new Error('the demo must not start')),
    log: (level, message) => lines.push(`${level} ${message}`),
    ...overrides,
  };
}

async function open(d: OpenUpdaterDeps): Promise<OpenedUpdater> {
  const result = await openUpdater(d);
  opened.push(result);
  return result;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'open-updater-'));
  lines = [];
});

afterEach(async () => {
  for (const o of opened.splice(0)) await o.updater.close();
  await rm(dir, { recursive: true, force: true });
});

describe('openUpdater', () => {
  it('opens a configured registry with the bundled pinned key, labelled by its host', async () => {
    await writeFile(join(dir, 'pinned-key.txt'), `${KEY}\n`);
    const result = await open(deps({ resourcesDir: dir }));
    expect(result).toMatchObject({
      label: 'updates.example',
      baseUrl: 'https://updates.example',
      demo: null,
    });
    expect((await result.updater.status()).lastError).toBeNull();
    expect(lines).toContain('info registry: updates.example');
  });

  it('a shipped resources/registry.json replaces the demo registry', async () => {
    await writeFile(
      join(dir, 'registry.json'),
      JSON.stringify({ base_url: 'https://shipped.example', pinned_keys: [KEY] }),
    );
    const result = await open(deps({ settings: memorySettings(), resourcesDir: dir }));
    expect(result).toMatchObject({
      label: 'shipped.example',
      baseUrl: 'https://shipped.example',
      demo: null,
    });
  });

  it('a broken shipped registry.json runs the refusing updater with CONFIG_INVALID', async () => {
    await writeFile(join(dir, 'registry.json'), '{ "base_url": ');
    const result = await open(deps({ settings: memorySettings(), resourcesDir: dir }));
    expect(result).toMatchObject({ label: 'Not configured', baseUrl: null, demo: null });
    await expect(result.updater.update()).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    expect(lines).toContain(
      'error configuration refused: CONFIG_INVALID: The shipped registry.json is invalid: it is not JSON.',
    );
  });

  it('a refused settings file decides nothing: refusing updater, no demo, "Not configured"', async () => {
    const refusal = new UpdateError('CONFIG_INVALID', 'settings refused');
    const startDemoServer = vi.fn(() => Promise.reject(new Error('never')));
    const result = await open(
      deps({ settings: memorySettings(), settingsRefusal: refusal, startDemoServer }),
    );
    expect(startDemoServer).not.toHaveBeenCalled();
    expect(result).toMatchObject({ label: 'Not configured', baseUrl: null, demo: null });
    await expect(result.updater.update()).rejects.toBe(refusal);
    expect(lines).toContain('error configuration refused: CONFIG_INVALID: settings refused');
  });

  it('NO_PINNED_KEY: a configured registry without any pinned key runs the refusing updater', async () => {
    const result = await open(deps());
    expect(result.label).toBe('Not configured');
    expect((await result.updater.status()).lastError?.code).toBe('NO_PINNED_KEY');
  });

  it('LOCKED: a second app on the same install directory is refused, not crashed', async () => {
    const d = deps({
      settings: memorySettings({
        ...DEFAULT_SETTINGS,
        baseUrl: 'https://updates.example',
        pinnedKeys: [KEY],
      }),
    });
    await open(d);
    const second = await open(d);
    expect((await second.updater.status()).lastError?.code).toBe('LOCKED');
  });

  it('passes the demo its data directory under userData, and closes it when the choice fails', async () => {
    const close = vi.fn(() => Promise.resolve());
    const demo = {
      url: 'http://127.0.0.1:9',
      nodePubkey: 'not-a-key',
      publish: () => Promise.resolve(),
      updates: { currentRelease: () => undefined },
      close,
    } satisfies DemoServer;
    const startDemoServer = vi.fn(() => Promise.resolve(demo));
    const result = await open(deps({ settings: memorySettings(), startDemoServer }));
    expect(startDemoServer).toHaveBeenCalledWith(join(dir, 'userData', 'demo-registry'));
    // Minting the demo key from a closed port fails: typed refusal, demo closed.
    expect(result.label).toBe('Not configured');
    expect(close).toHaveBeenCalled();
  });

  it('lets an error that is not an UpdateError propagate (a bug, not a refusal)', async () => {
    const bug = new TypeError('bug');
    const broken = {
      get: () => {
        throw bug;
      },
      set: () => undefined,
    };
    await expect(openUpdater(deps({ settings: broken }))).rejects.toBe(bug);
  });
});

describe('controllerFor', () => {
  it('a refused configuration plans no automatic check and refuses the activity widget', async () => {
    const result = await open(deps());
    const controller = controllerFor(result, {
      settings: memorySettings(),
      notify: () => undefined,
      log: () => undefined,
    });
    await controller.start();
    expect(controller.getStatus().nextCheckAtMs).toBeNull();
    expect(await controller.getActivity()).toMatchObject({
      state: 'error',
      code: 'CONFIG_INVALID',
    });
    await controller.close();
  });

  it('logs outcomes of the core, not its progress', async () => {
    const result = await open(deps());
    const listeners = new Set<(event: UpdateEvent) => void>();
    const emit = (event: UpdateEvent): void => listeners.forEach((listener) => listener(event));
    const updater: UpdaterApi = {
      ...result.updater,
      on: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
    const logged: string[] = [];
    const controller = controllerFor(
      { ...result, updater },
      {
        settings: memorySettings(),
        notify: () => undefined,
        log: (level, message) => logged.push(`${level} ${message}`),
      },
    );
    emit({ type: 'progress', bytes: 1, total: 2, artifact: 'a' });
    emit({ type: 'applied', version: '1.2.3', previousVersion: null, atMs: 0 });
    emit({ type: 'error', code: 'NETWORK', message: 'down', atMs: 0 });
    expect(logged).toEqual(['info applied 1.2.3', 'warn update NETWORK: down']);
    await controller.close();
  });
});
