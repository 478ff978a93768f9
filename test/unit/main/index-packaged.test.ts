/**
 * The composition root as a packaged build with `electron` mocked (app.isPackaged true): no
 * DevTools in the window, no application menu (so no Reload / Toggle DevTools shortcuts), and
 * the start-at-login setting applied at start (here on: Linux writes an XDG autostart entry,
 * macOS and Windows call app.setLoginItemSettings).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const h = vi.hoisted(() => ({
  userData: '',
  options: [] as Record<string, unknown>[],
  applicationMenus: [] as unknown[],
  loginItems: [] as unknown[],
  exitCode: undefined as number | undefined,
}));

vi.mock('electron', async () => {
  const { netRequestOverFetch } = await import('./net-request-stand-in.js');
  class BrowserWindow {
    readonly webContents = { id: 41, on() {}, setWindowOpenHandler() {}, send() {}, reload() {} };
    constructor(options: Record<string, unknown>) {
      h.options.push(options);
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
    setContextMenu() {}
  }
  return {
    app: {
      isPackaged: true,
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
      setLoginItemSettings: (settings: unknown) => h.loginItems.push(settings),
    },
    BrowserWindow,
    powerMonitor: { on: () => undefined },
    Tray,
    ipcMain: { handle: () => undefined },
    protocol: { registerSchemesAsPrivileged: () => undefined, handle: () => undefined },
    // The app's requests go through net.request (net-request-fetch.ts: proxy sign-in).
    net: { request: netRequestOverFetch() },
    Menu: {
      buildFromTemplate: (template: unknown) => template,
      setApplicationMenu: (menu: unknown) => h.applicationMenus.push(menu),
    },
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

// Start at login on; a configured registry without a machine key (refused quickly, no demo).
vi.mock('electron-store', () => ({
  default: class {
    readonly values: Map<string, unknown>;
    constructor(options: { defaults: Record<string, unknown> }) {
      this.values = new Map(Object.entries(options.defaults));
      this.values.set('startAtLogin', true);
      this.values.set('baseUrl', 'https://updates.example');
    }
    get(key: string) {
      return this.values.get(key);
    }
    set(key: string, value: unknown) {
      this.values.set(key, value);
    }
  },
}));

describe('main process of a packaged build (electron mocked)', () => {
  let shutdown: () => Promise<void>;
  const saved = { xdg: process.env['XDG_CONFIG_HOME'] };

  beforeAll(async () => {
    h.userData = await mkdtemp(join(tmpdir(), 'desktop-main-packaged-'));
    process.env['XDG_CONFIG_HOME'] = join(h.userData, 'xdg');
    // Set by Electron in a packaged app; the resources folder holds no key here.
    (process as { resourcesPath?: string }).resourcesPath = h.userData;
    const main = await import('#main/index.js');
    shutdown = main.shutdown;
    await main.started;
  });

  afterAll(async () => {
    await shutdown();
    if (saved.xdg === undefined) delete process.env['XDG_CONFIG_HOME'];
    else process.env['XDG_CONFIG_HOME'] = saved.xdg;
    await rm(h.userData, { recursive: true, force: true });
  });

  it('boots', () => {
    expect(h.exitCode).toBeUndefined();
    expect(h.options).toHaveLength(1);
  });

  it('turns DevTools off in the window', () => {
    const prefs = h.options[0]?.['webPreferences'] as Record<string, unknown>;
    expect(prefs['devTools']).toBe(false);
  });

  it('removes the default application menu', () => {
    expect(h.applicationMenus).toEqual([null]);
  });

  it('applies start at login when the setting is on', async () => {
    if (process.platform === 'linux') {
      await vi.waitFor(async () => {
        const entry = await readFile(
          join(h.userData, 'xdg', 'autostart', 'verified-updater.desktop'),
          'utf8',
        );
        expect(entry).toContain(`Exec="${process.execPath}"`);
      });
    } else {
      expect(h.loginItems).toEqual([{ openAtLogin: true }]);
    }
  });
});
