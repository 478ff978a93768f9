/**
 * The composition root with `electron` mocked: src/main/index.ts boots for real (real demo
 * server on loopback, real core in a temp dir), and we check what it hands to Electron: the
 * window's security flags, denied navigation and popups, guarded IPC handlers, the tray menu.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AppStatus } from '#preload/ipc-contract.js';

const h = vi.hoisted(() => ({
  userData: '',
  windows: [] as {
    options: Record<string, unknown>;
    handlers: Map<string, (...args: unknown[]) => void>;
    openHandler?: () => unknown;
  }[],
  ipc: new Map<string, (event: unknown, ...args: unknown[]) => Promise<unknown>>(),
  menus: [] as { id?: string; label?: string }[][],
  permission: undefined as
    undefined | ((wc: unknown, perm: string, done: (ok: boolean) => void) => void),
  exitCode: undefined as number | undefined,
  permissionCheck: undefined as undefined | (() => boolean),
  sandboxEnforced: false,
  appHandlers: new Map<string, (event: { preventDefault(): void }) => void>(),
  quits: 0,
  order: [] as string[],
  loaded: [] as string[],
  protocolHandlers: new Map<string, (request: Request) => Promise<Response>>(),
  privileged: [] as unknown[],
  windowEvents: new Map<string, (event?: unknown) => void>(),
  trayEvents: new Map<string, () => void>(),
  visible: false,
  appUserModelIds: [] as string[],
  reloads: 0,
  powerEvents: new Map<string, (event: { preventDefault(): void }) => void>(),
  /** Every URL the app asked Electron's session to fetch. */
  netRequests: [] as string[],
  /** Every push event sent to the window: [channel, payload]. */
  sent: [] as [string, unknown][],
}));

vi.mock('electron', async () => {
  const { netRequestOverFetch } = await import('./net-request-stand-in.js');
  class BrowserWindow {
    readonly webContents;
    constructor(options: Record<string, unknown>) {
      const handlers = new Map<string, (...args: unknown[]) => void>();
      const record: (typeof h.windows)[number] = { options, handlers };
      h.windows.push(record);
      this.webContents = {
        id: 41,
        on: (name: string, fn: (...args: unknown[]) => void) => handlers.set(name, fn),
        setWindowOpenHandler: (fn: () => unknown) => {
          record.openHandler = fn;
        },
        send: (channel: string, payload: unknown) => {
          h.sent.push([channel, payload]);
        },
        reload: () => {
          h.reloads += 1;
        },
      };
    }
    on(name: string, fn: (event?: unknown) => void) {
      h.windowEvents.set(name, fn);
    }
    loadFile(path: string) {
      h.loaded.push(`file:${path}`);
      return Promise.resolve();
    }
    loadURL(url: string) {
      h.loaded.push(url);
      return Promise.resolve();
    }
    isDestroyed() {
      return false;
    }
    isVisible() {
      return h.visible;
    }
    hide() {
      h.visible = false;
    }
    show() {
      h.visible = true;
    }
    focus() {}
    setPosition() {}
  }
  class Tray {
    on(name: string, fn: () => void) {
      h.trayEvents.set(name, fn);
    }
    setToolTip() {}
    setContextMenu(menu: { id?: string; label?: string }[]) {
      h.menus.push(menu);
    }
    getBounds() {
      return { x: 0, y: 0, width: 0, height: 0 };
    }
  }
  return {
    app: {
      isPackaged: false,
      getPath: (name: string) => join(h.userData, name),
      getVersion: () => '0.1.0',
      requestSingleInstanceLock: () => true,
      // Windows only in Electron (absent elsewhere); recorded here to check the wiring.
      setAppUserModelId: (id: string) => {
        h.order.push('app-user-model-id');
        h.appUserModelIds.push(id);
      },
      enableSandbox: () => {
        h.sandboxEnforced = true;
      },
      on: (name: string, fn: (event: { preventDefault(): void }) => void) => {
        h.appHandlers.set(name, fn);
      },
      whenReady: () => {
        h.order.push('ready');
        return Promise.resolve();
      },
      quit: () => {
        h.quits += 1;
      },
      exit: (code: number) => {
        h.exitCode = code;
      },
    },
    BrowserWindow,
    powerMonitor: {
      on: (name: string, fn: (event: { preventDefault(): void }) => void) => {
        h.powerEvents.set(name, fn);
      },
    },
    Tray,
    ipcMain: {
      handle: (channel: string, fn: (event: unknown, ...args: unknown[]) => Promise<unknown>) =>
        h.ipc.set(channel, fn),
    },
    protocol: {
      registerSchemesAsPrivileged: (schemes: unknown[]) => {
        h.order.push('register-schemes');
        h.privileged.push(...schemes);
      },
      handle: (scheme: string, fn: (request: Request) => Promise<Response>) => {
        h.protocolHandlers.set(scheme, fn);
      },
    },
    // The app's requests go through net.request (net-request-fetch.ts: proxy sign-in).
    net: { request: netRequestOverFetch((url) => h.netRequests.push(url)) },
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
      defaultSession: {
        setPermissionRequestHandler: (fn: typeof h.permission) => {
          h.permission = fn;
        },
        setPermissionCheckHandler: (fn: () => boolean) => {
          h.permissionCheck = fn;
        },
      },
    },
  };
});

vi.mock('electron-store', () => ({
  default: class {
    readonly values: Map<string, unknown>;
    constructor(options: { defaults: Record<string, unknown> }) {
      this.values = new Map(Object.entries(options.defaults));
    }
    get(key: string) {
      return this.values.get(key);
    }
    set(key: string, value: unknown) {
      this.values.set(key, value);
    }
  },
}));

const trusted = {
  sender: { id: 41 },
  senderFrame: { url: 'app://renderer/index.html', parent: null },
};
const foreign = { sender: { id: 41 }, senderFrame: { url: 'https://evil.example/', parent: null } };

async function invoke(
  channel: string,
  event: unknown = trusted,
  ...args: unknown[]
): Promise<unknown> {
  const handler = h.ipc.get(channel);
  if (handler === undefined) throw new Error(`no handler for ${channel}`);
  return handler(event, ...args);
}

describe('main process composition (electron mocked)', () => {
  let shutdown: () => Promise<void>;

  beforeAll(async () => {
    h.userData = await mkdtemp(join(tmpdir(), 'desktop-main-'));
    const main = await import('#main/index.js');
    shutdown = main.shutdown;
    await main.started;
  });

  afterAll(async () => {
    await shutdown();
    await rm(h.userData, { recursive: true, force: true });
  });

  it('boots without exiting, with the sandbox enforced for every renderer', () => {
    expect(h.exitCode).toBeUndefined();
    expect(h.sandboxEnforced).toBe(true);
  });

  it('opens one frameless window with contextIsolation and sandbox on, nodeIntegration off', () => {
    expect(h.windows).toHaveLength(1);
    const options = h.windows[0]?.options as {
      frame: boolean;
      webPreferences: Record<string, unknown>;
    };
    expect(options.frame).toBe(false);
    expect(options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    });
    expect(String(options.webPreferences['preload'])).toMatch(/preload[\\/]index\.cjs$/);
  });

  it('reports the never-shown window as hidden, so the widget does not poll before Open', () => {
    // Electron's BrowserWindow options: with show: false the page is "visible" unless
    // paintWhenInitiallyHidden is false; the widget pauses on document.visibilityState.
    const options = h.windows[0]?.options as {
      show: boolean;
      paintWhenInitiallyHidden?: boolean;
      webPreferences: Record<string, unknown>;
    };
    expect(options.show).toBe(false);
    expect(options.paintWhenInitiallyHidden).toBe(false);
    expect(options.webPreferences['backgroundThrottling']).not.toBe(false);
  });

  it('loads the page from its own app:// scheme, never from file://', () => {
    expect(h.loaded).toEqual(['app://renderer/index.html']);
  });

  it('registers the app scheme as privileged before ready and serves the page with the CSP header', async () => {
    expect(h.order.indexOf('register-schemes')).toBeGreaterThanOrEqual(0);
    expect(h.order.indexOf('register-schemes')).toBeLessThan(h.order.indexOf('ready'));
    expect(h.privileged).toEqual([{ scheme: 'app', privileges: { standard: true, secure: true } }]);
    const serve = h.protocolHandlers.get('app');
    const response = await serve?.(new Request('app://renderer/index.html'));
    expect(response?.status).toBe(200);
    expect(response?.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await response?.text()).toContain('Most active this time unit');
  });

  it('a launch the user started shows the window at once', () => {
    expect(h.visible).toBe(true);
  });

  it('the tray icon opens the window, and closes it even when its press blurred the window first', () => {
    h.visible = false;
    h.trayEvents.get('click')?.();
    expect(h.visible).toBe(true);
    // Windows: pressing the icon takes focus from the window (blur hides it), then the click
    // arrives: it must not reopen the window.
    h.windowEvents.get('blur')?.();
    expect(h.visible).toBe(false);
    h.trayEvents.get('click')?.();
    expect(h.visible).toBe(false);
  });

  it('closing the window (Alt+F4) hides it, and it can be shown again', () => {
    const show = (): void => h.appHandlers.get('second-instance')?.({ preventDefault: vi.fn() });
    show();
    expect(h.visible).toBe(true);
    const prevent = vi.fn();
    h.windowEvents.get('close')?.({ preventDefault: prevent });
    expect(prevent).toHaveBeenCalledTimes(1);
    expect(h.visible).toBe(false);
    show(); // the window object survived: no "destroyed" error, it shows again
    expect(h.visible).toBe(true);
    h.windowEvents.get('blur')?.();
  });

  it("the tray's Settings… asks the window for its settings section and shows it", () => {
    h.visible = false;
    const menu = h.menus.at(-1) as { id?: string; click?: () => void }[];
    const item = menu.find((entry) => entry.id === 'settings');
    expect(item?.click).toBeDefined();
    item?.click?.();
    expect(h.sent).toContainEqual(['window:section', 'settings']);
    expect(h.visible).toBe(true);
  });

  it('Esc hides the tray window; Enter does not', () => {
    h.visible = true;
    const onKey = h.windows[0]?.handlers.get('before-input-event');
    const key = { type: 'keyDown', alt: false, control: false, meta: false, shift: false };
    onKey?.({}, { ...key, key: 'Enter', isAutoRepeat: false });
    expect(h.visible).toBe(true);
    onKey?.({}, { ...key, key: 'Escape', isAutoRepeat: false });
    expect(h.visible).toBe(false);
  });

  it('macOS activate (a relaunch while running) shows the window', () => {
    h.visible = false;
    h.appHandlers.get('activate')?.({ preventDefault: () => undefined });
    expect(h.visible).toBe(true);
    h.windowEvents.get('blur')?.();
  });

  it("answers proxy sign-in through app 'login' and leaves a server's challenge to Electron's default (cancel)", () => {
    const login = h.appHandlers.get('login') as unknown as
      | ((
          event: { preventDefault(): void },
          webContents: unknown,
          details: unknown,
          authInfo: { isProxy: boolean; scheme: string; host: string; port: number; realm: string },
          callback: () => void,
        ) => void)
      | undefined;
    expect(login).toBeDefined();
    const prevent = vi.fn();
    const callback = vi.fn();
    login?.(
      { preventDefault: prevent },
      null,
      null,
      {
        isProxy: false,
        scheme: 'basic',
        host: 'example.com',
        port: 443,
        realm: 'r',
      },
      callback,
    );
    expect(prevent).not.toHaveBeenCalled();
    expect(callback).not.toHaveBeenCalled();
  });

  it('a renderer that is gone is reloaded', () => {
    const before = h.reloads;
    h.windows[0]?.handlers.get('render-process-gone')?.({}, { reason: 'crashed', exitCode: 11 });
    expect(h.reloads).toBe(before + 1);
  });

  it('a renderer that keeps failing gets the gave-up page, whose Reload loads the window again', () => {
    const win = h.windows[0];
    const before = h.reloads;
    // The test above used one reload of the budget; keep failing until the window gives up.
    for (let i = 0; i < 4 && !(h.loaded.at(-1) ?? '').startsWith('data:'); i += 1) {
      win?.handlers.get('render-process-gone')?.({}, { reason: 'oom', exitCode: 9 });
    }
    expect(h.reloads - before).toBeLessThanOrEqual(3);
    const page = decodeURIComponent((h.loaded.at(-1) ?? '').split(',')[1] ?? '');
    expect(page).toContain('The window stopped working. Your updates are not affected.');
    const prevent = vi.fn();
    win?.handlers.get('will-navigate')?.({
      url: 'app://window-recovery/reload?',
      preventDefault: prevent,
    });
    expect(prevent).toHaveBeenCalledTimes(1);
    expect(h.loaded.at(-1)).toBe('app://renderer/index.html');
  });

  it('keeps DevTools in a development run (not packaged)', () => {
    const prefs = h.windows[0]?.options['webPreferences'] as Record<string, unknown>;
    expect(prefs['devTools']).toBe(true);
  });

  it("sets Windows' Application User Model ID to the installer's appId before ready, so its notifications show", () => {
    expect(h.appUserModelIds).toEqual(['dev.verified-updater.desktop']);
    expect(h.order.indexOf('app-user-model-id')).toBeLessThan(h.order.indexOf('ready'));
  });

  it('denies navigation, redirects, webviews and new windows', () => {
    const win = h.windows[0];
    const prevent = vi.fn();
    for (const name of ['will-navigate', 'will-redirect', 'will-attach-webview']) {
      win?.handlers.get(name)?.({ preventDefault: prevent });
    }
    expect(prevent).toHaveBeenCalledTimes(3);
    expect(win?.openHandler?.()).toEqual({ action: 'deny' });
  });

  it('denies every permission request', () => {
    const done = vi.fn();
    h.permission?.(undefined, 'media', done);
    expect(done).toHaveBeenCalledWith(false);
    expect(h.permissionCheck?.()).toBe(false);
  });

  it('registers exactly the preload channels, each refusing a foreign sender', async () => {
    expect([...h.ipc.keys()].sort()).toEqual([
      'activity:get',
      'app:open-log',
      'settings:get',
      'settings:save',
      'updater:cancel',
      'updater:check-now',
      'updater:get-status',
      'updater:install-now',
      'updater:roll-back',
      'updater:set-paused',
      'updater:skip-version',
      'updater:verify',
    ]);
    for (const channel of h.ipc.keys()) {
      await expect(invoke(channel, foreign)).rejects.toMatchObject({ code: 'UNTRUSTED_SENDER' });
    }
  });

  it('refuses arguments on every channel, even from the trusted window', async () => {
    for (const channel of h.ipc.keys()) {
      // An object fits no channel's arguments (skip-version takes one version string).
      await expect(invoke(channel, trusted, { extra: true })).rejects.toMatchObject({
        code: 'BAD_ARGUMENTS',
      });
    }
    await expect(invoke('updater:skip-version', trusted, '2.0.0 <script>')).rejects.toMatchObject({
      code: 'BAD_ARGUMENTS',
    });
  });

  it('first run wires the demo registry: Check now installs the demo release from the in-process server', async () => {
    expect(((await invoke('updater:get-status')) as AppStatus).registryLabel).toBe('Demo registry');
    await invoke('updater:check-now');
    const status = (await invoke('updater:get-status')) as AppStatus;
    expect(status).toMatchObject({ installedVersion: '1.0.0', lastError: null, phase: 'idle' });
    const statusLine = h.menus.at(-1)?.find((item) => item.id === 'status');
    expect(statusLine?.label).toBe('Up to date (1.0.0)');
    const installed = h.menus.at(-1)?.find((item) => item.id === 'installed');
    expect(installed?.label).toBe('Installed: 1.0.0 · Demo registry');
  });

  it('serves the activity ranking through the main process', async () => {
    const result = (await invoke('activity:get')) as { state: string };
    expect(result.state).toBe('ok');
  });

  it('the settings screen: shown without the machine key, a refusal in plain words, a save restarts the core', async () => {
    const view = (await invoke('settings:get')) as Record<string, unknown>;
    expect(view).toMatchObject({
      registryUrl: '',
      machineKeySet: false,
      checkIntervalMinutes: 60,
      startAtLoginAvailable: true,
    });
    // The mocked safeStorage has no encryption: the screen says the key stays in memory.
    expect(view['machineKeyStorage']).toContain('kept in memory until the app quits');
    const input = {
      registryUrl: 'http://updates.example.com',
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
    expect(view).toMatchObject({
      updatePolicy: 'auto',
      selfUpdate: 'ask',
      minimiseToBackground: true,
    });
    expect(await invoke('settings:save', trusted, input)).toMatchObject({
      ok: false,
      problems: [{ field: 'registryUrl' }, { field: 'pinnedKeys' }, { field: 'machineKey' }],
    });
    await expect(invoke('settings:save', trusted, { ...input, extra: true })).rejects.toMatchObject(
      { code: 'BAD_ARGUMENTS' },
    );
    const withoutNonce = Object.fromEntries(
      Object.entries(input).filter(([k]) => k !== 'requireNonce'),
    );
    await expect(invoke('settings:save', trusted, withoutNonce)).rejects.toMatchObject({
      code: 'BAD_ARGUMENTS',
    });
    // A choice outside its list is refused at the boundary, like a missing field.
    for (const bad of [{ selfUpdate: 'sometimes' }, { updatePolicy: 'later' }]) {
      await expect(invoke('settings:save', trusted, { ...input, ...bad })).rejects.toMatchObject({
        code: 'BAD_ARGUMENTS',
      });
    }
    // The interval changed: the core and the demo registry close, and open again on it.
    expect(await invoke('settings:save', trusted, { ...input, registryUrl: '' })).toMatchObject({
      ok: true,
      words: 'Saved. The updater restarted on the demo registry.',
    });
    expect(
      ((await invoke('settings:get')) as { checkIntervalMinutes: number }).checkIntervalMinutes,
    ).toBe(30);
    await invoke('updater:check-now');
    expect(await invoke('updater:get-status')).toMatchObject({
      registryLabel: 'Demo registry',
      installedVersion: '1.0.0',
      lastError: null,
    });
    expect(((await invoke('activity:get')) as { state: string }).state).toBe('ok');
    // Asking for a nonce restarts the core on it: every check then sends one, and the demo
    // registry signs a statement for it.
    const saved = await invoke('settings:save', trusted, {
      ...input,
      registryUrl: '',
      requireNonce: true,
    });
    expect(saved).toMatchObject({ ok: true, settings: { requireNonce: true } });
    const before = h.netRequests.length;
    await invoke('updater:check-now');
    expect(await invoke('updater:get-status')).toMatchObject({ lastError: null });
    const sent = h.netRequests.slice(before).filter((u) => u.includes('/api/updates/manifest'));
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((u) => /[?&]nonce=[A-Za-z0-9_-]{16,64}(&|$)/.test(u))).toBe(true);
  });

  it("every request of the app goes through the session's net.request (system proxy, proxy sign-in, OS certificates)", () => {
    const paths = h.netRequests.map((url) => new URL(url).pathname);
    expect(paths).toContain('/api/demo-key/mint');
    expect(paths.some((p) => p.startsWith('/api/updates/manifest'))).toBe(true);
    expect(paths.some((p) => p.startsWith('/api/updates/artifacts/'))).toBe(true);
    expect(paths).toContain('/api/chain/active');
  });

  it('OS shutdown (powerMonitor, Linux and macOS): delayed, the core and demo server closed, then exit 0', async () => {
    const locks = async (): Promise<string[]> =>
      (await readdir(h.userData, { recursive: true })).filter((f) =>
        f.endsWith(join('.updater', 'lock')),
      );
    expect(await locks()).toHaveLength(1); // the running core holds its state directory
    const shutdownEvent = h.powerEvents.get('shutdown');
    expect(shutdownEvent).toBeDefined();
    const prevent = vi.fn();
    shutdownEvent?.({ preventDefault: prevent });
    expect(prevent).toHaveBeenCalledTimes(1);
    await vi.waitFor(() => expect(h.exitCode).toBe(0), { timeout: 5_000, interval: 20 });
    expect(await locks()).toEqual([]); // the core released its state lock
    const status = (await invoke('activity:get')) as { state: string };
    expect(status.state).toBe('offline');
  });

  it('Quit first closes the core and the demo server, then quits', async () => {
    const prevent = vi.fn();
    h.appHandlers.get('before-quit')?.({ preventDefault: prevent });
    expect(prevent).toHaveBeenCalledTimes(1);
    await vi.waitFor(() => expect(h.quits).toBe(1), { timeout: 5_000, interval: 20 });
    // The demo server is closed: the registry no longer answers.
    const status = (await invoke('activity:get')) as { state: string };
    expect(status.state).toBe('offline');
  });
});
