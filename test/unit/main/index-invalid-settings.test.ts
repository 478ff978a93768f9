/**
 * The composition root when the settings file is invalid (hand-edited past the schema, or not
 * JSON): electron-store refuses to open it. The tray app must not vanish (exit 1 with a console
 * line nobody sees): it runs the refusing updater, shows CONFIG_INVALID in the window, starts
 * no demo registry, and leaves the file as it is for the user to fix.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AppStatus } from '#preload/ipc-contract.js';

const h = vi.hoisted(() => ({
  userData: '',
  exitCode: undefined as number | undefined,
  windows: 0,
  ipc: new Map<string, (event: unknown, ...args: unknown[]) => Promise<unknown>>(),
  menus: [] as { id?: string; label?: string }[][],
}));

vi.mock('electron', async () => {
  const { netRequestOverFetch } = await import('./net-request-stand-in.js');
  class BrowserWindow {
    readonly webContents = { id: 41, on() {}, setWindowOpenHandler() {}, send() {} };
    constructor() {
      h.windows += 1;
    }
    on() {}
    loadURL() {
      return Promise.resolve();
    }
    isDestroyed() {
      return false;
    }
    isVisible() {
      return false;
    }
    // A launch by hand shows the window next to the tray icon (launch-mode.ts).
    setPosition() {}
    show() {}
    focus() {}
  }
  class Tray {
    on() {}
    getBounds() {
      return { x: 0, y: 0, width: 0, height: 0 };
    }
    setToolTip() {}
    setContextMenu(menu: { id?: string; label?: string }[]) {
      h.menus.push(menu);
    }
  }
  return {
    app: {
      isPackaged: false,
      getPath: (name: string) => join(h.userData, name),
      getVersion: () => '0.1.0',
      requestSingleInstanceLock: () => true,
      enableSandbox: () => undefined,
      on: () => undefined,
      whenReady: () => Promise.resolve(),
      quit: () => undefined,
      exit: (code: number) => {
        h.exitCode = code;
      },
    },
    BrowserWindow,
    powerMonitor: { on: () => undefined },
    Tray,
    ipcMain: {
      handle: (channel: string, fn: (event: unknown, ...args: unknown[]) => Promise<unknown>) =>
        h.ipc.set(channel, fn),
    },
    protocol: { registerSchemesAsPrivileged: () => undefined, handle: () => undefined },
    // The app's requests go through net.request (net-request-fetch.ts: proxy sign-in).
    net: { request: netRequestOverFetch() },
    Menu: { buildFromTemplate: (template: unknown) => template },
    nativeImage: { createFromPath: (path: string) => path },
    Notification: { isSupported: () => false },
    safeStorage: {
      isEncryptionAvailable: () => false,
      encryptString: () => Buffer.alloc(0),
      decryptString: () => '',
    },
    screen: {
      getDisplayNearestPoint: () => ({ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }),
    },
    session: {
      defaultSession: { setPermissionRequestHandler() {}, setPermissionCheckHandler() {} },
    },
  };
});

// What conf (under electron-store) throws for a file that breaks the schema.
vi.mock('electron-store', () => ({
  default: class {
    constructor() {
      throw new Error('Config schema violation: `checkIntervalMs` must be >= 60000');
    }
  },
}));

const trusted = {
  sender: { id: 41 },
  senderFrame: { url: 'app://renderer/index.html', parent: null },
};

describe('main process with an invalid settings file (electron mocked)', () => {
  let shutdown: () => Promise<void>;

  beforeAll(async () => {
    h.userData = await mkdtemp(join(tmpdir(), 'desktop-main-bad-settings-'));
    const main = await import('#main/index.js');
    shutdown = main.shutdown;
    await main.started;
  });

  afterAll(async () => {
    await shutdown();
    await rm(h.userData, { recursive: true, force: true });
  });

  it('keeps the tray app up instead of exiting', () => {
    expect(h.exitCode).toBeUndefined();
    expect(h.windows).toBe(1);
  });

  it('shows CONFIG_INVALID in the window and the tray, labelled "Not configured"', async () => {
    const getStatus = h.ipc.get('updater:get-status');
    const status = (await getStatus?.(trusted)) as AppStatus;
    expect(status.registryLabel).toBe('Not configured');
    expect(status.lastError?.code).toBe('CONFIG_INVALID');
    const menu = h.menus.at(-1);
    expect(menu?.find((item) => item.id === 'status')?.label).toBe(
      'Update failed (CONFIG_INVALID)',
    );
    expect(menu?.find((item) => item.id === 'installed')?.label).toBe(
      'Installed: none yet · Not configured',
    );
  });

  it('starts no demo registry: the activity widget is refused too, nothing is fetched', async () => {
    const getActivity = h.ipc.get('activity:get');
    expect(await getActivity?.(trusted)).toMatchObject({ state: 'error', code: 'CONFIG_INVALID' });
  });
});
