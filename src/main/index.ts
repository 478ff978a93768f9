/**
 * The Electron composition root (issue 6). Only wiring lives here: every decision is in a
 * small Electron-free module with its own unit tests (app-controller, tray-menu,
 * window-position, ipc-guard, first-run, secret-store, settings, activity-client, log-file).
 * Security: Electron's checklist (contextIsolation, sandbox, no nodeIntegration, the page on
 * our own app:// scheme with a strict CSP header and meta tag, navigation and new windows
 * denied, every IPC sender and argument checked, permissions denied).
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  app,
  BrowserWindow,
  ipcMain,
  Menu,
  nativeImage,
  Notification,
  protocol,
  safeStorage,
  screen,
  session,
  Tray,
} from 'electron';
import { startServer } from '../../server/src/start-server.js';
import { isUpdateError, type UpdateError } from '../core/errors.js';
import type { UpdaterApi } from '../core/updater-api.js';
import { createNodeUpdater } from '../node/create-updater.js';
import { IPC_CHANNELS, STATUS_EVENT_CHANNEL } from '../preload/ipc-contract.js';
import { fetchActivity } from './activity-client.js';
import { APP_ID } from './app-identity.js';
import {
  APP_ENTRY_URL,
  APP_PRIVILEGED_SCHEME,
  APP_SCHEME,
  createAppProtocolHandler,
} from './app-protocol.js';
import { createAppController, type AppController } from './app-controller.js';
import { createCheckScheduler } from './check-scheduler.js';
import { chooseRegistry, type RegistryChoice } from './first-run.js';
import { guarded } from './ipc-guard.js';
import { openLogFile, type LogFile } from './log-file.js';
import { refusingUpdater } from './refusing-updater.js';
import { createSecretStore, type SecretStore } from './secret-store.js';
import { memorySettings, openSettingsStore, type SettingsStore } from './settings.js';
import { trayMenuTemplate, trayTooltip } from './tray-menu.js';
import { createTrayToggle } from './tray-toggle.js';
import { windowPosition } from './window-position.js';

const WINDOW_SIZE = { width: 380, height: 560 };
const here = dirname(fileURLToPath(import.meta.url));
/** dist/app/main -> dist/app; inside the package, app.asar/dist/app. */
const appDir = join(here, '..');
const resourcesDir = app.isPackaged
  ? join(process.resourcesPath, 'resources')
  : join(here, '..', '..', '..', 'resources');

let window: BrowserWindow | null = null;
let tray: Tray | null = null;
let controller: AppController | null = null;
let registry: RegistryChoice | null = null;
let log: LogFile | null = null;
/** Tray click and blur share one toggle, so the press that blurs the window does not reopen it. */
const trayToggle = createTrayToggle({
  nowMs: () => Date.now(),
  isVisible: () => window?.isVisible() === true,
  show: () => showWindow(),
  hide: () => window?.hide(),
});
/** Pauses or resumes the schedule and remembers the choice (set once settings are open). */
let setPaused: (paused: boolean) => void = () => undefined;

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    ...WINDOW_SIZE,
    show: false,
    // Otherwise a never-shown window reports document.visibilityState 'visible' and the
    // widget, which pauses while hidden, would poll the registry before anyone opens it.
    paintWhenInitiallyHidden: false,
    frame: false,
    resizable: false,
    skipTaskbar: true,
    alwaysOnTop: true,
    title: 'Verified Updater',
    webPreferences: {
      preload: join(appDir, 'preload', 'index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  // Navigation and new windows are denied: the window only ever shows our own page.
  win.webContents.on('will-navigate', (event) => event.preventDefault());
  win.webContents.on('will-redirect', (event) => event.preventDefault());
  win.webContents.on('will-attach-webview', (event) => event.preventDefault());
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  win.on('blur', () => trayToggle.onBlur());
  // Our own scheme, never file:// (checklist §18); it sends the CSP header (app-protocol.ts).
  void win.loadURL(APP_ENTRY_URL);
  return win;
}

function showWindow(): void {
  if (window === null || tray === null) return;
  const trayBounds = tray.getBounds();
  const display = screen.getDisplayNearestPoint({ x: trayBounds.x, y: trayBounds.y });
  const { x, y } = windowPosition(trayBounds, WINDOW_SIZE, display.workArea);
  window.setPosition(x, y);
  window.show();
  window.focus();
}

function refreshTray(): void {
  if (tray === null || controller === null) return;
  const status = controller.getStatus();
  const c = controller;
  tray.setToolTip(trayTooltip(status));
  tray.setContextMenu(
    Menu.buildFromTemplate(
      trayMenuTemplate(status, {
        checkNow: () => void c.checkNow(),
        open: showWindow,
        setPaused: (paused) => setPaused(paused),
        quit: () => app.quit(),
      }),
    ),
  );
}

function registerIpc(c: AppController): void {
  const trustedId = (): number | null =>
    window === null || window.isDestroyed() ? null : window.webContents.id;
  ipcMain.handle(
    IPC_CHANNELS.getStatus,
    guarded(trustedId, () => c.getStatus()),
  );
  ipcMain.handle(
    IPC_CHANNELS.checkNow,
    guarded(trustedId, () => c.checkNow()),
  );
  ipcMain.handle(
    IPC_CHANNELS.getActivity,
    guarded(trustedId, () => c.getActivity()),
  );
}

/**
 * Chooses the registry and opens the core on it. A refused configuration (UpdateError: no
 * pinned key, bad URL, no machine key, LOCKED) does not kill the tray app: it runs a refusing
 * updater so the window shows the code in plain words. Anything else is a bug and propagates.
 */
async function openUpdater(
  settings: SettingsStore,
  secrets: SecretStore,
  settingsRefusal: UpdateError | null,
): Promise<{ updater: UpdaterApi; label: string; baseUrl: string | null }> {
  try {
    // Refused settings decide nothing, not even "no registry configured, start the demo".
    if (settingsRefusal !== null) throw settingsRefusal;
    registry = await chooseRegistry({
      settings: { baseUrl: settings.get('baseUrl'), pinnedKeys: settings.get('pinnedKeys') },
      readBundledKey: async () => {
        try {
          const text = (await readFile(join(resourcesDir, 'pinned-key.txt'), 'utf8')).trim();
          return text === '' ? null : text;
        } catch {
          return null;
        }
      },
      secrets,
      // Persisted data dir: the demo node key (and its releases) survive restarts, so the
      // pinned key and the accepted version stay consistent across runs.
      startDemoServer: () =>
        startServer({
          host: '127.0.0.1',
          port: 0,
          dev: false,
          dataDir: join(app.getPath('userData'), 'demo-registry'),
        }),
    });
    log?.write('info', `registry: ${registry.label}`);
    const updater = await createNodeUpdater({
      baseUrl: registry.baseUrl,
      machineKey: registry.machineKey,
      pubkeys: [...registry.pubkeys],
      dir: join(app.getPath('userData'), registry.demo === null ? 'install' : 'demo-install'),
    });
    return { updater, label: registry.label, baseUrl: registry.baseUrl };
  } catch (error) {
    if (!isUpdateError(error)) throw error;
    log?.write('error', `configuration refused: ${error.code}: ${error.message}`);
    await registry?.demo?.close();
    registry = null;
    return { updater: refusingUpdater(error), label: 'Not configured', baseUrl: null };
  }
}

async function boot(): Promise<void> {
  log = openLogFile({ dir: app.getPath('logs') });
  const logLine = (message: string): void => log?.write('info', message);
  // Deny every permission request (camera, notifications from the page, …).
  session.defaultSession.setPermissionRequestHandler((_wc, _perm, done) => done(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
  protocol.handle(APP_SCHEME, createAppProtocolHandler({ rootDir: join(appDir, 'renderer') }));

  let settings: SettingsStore;
  let settingsRefusal: UpdateError | null = null;
  try {
    settings = await openSettingsStore();
  } catch (error) {
    if (!isUpdateError(error)) throw error;
    const cause = error.cause instanceof Error ? error.cause.message : '';
    log.write('error', `settings refused: ${error.message} ${cause}`);
    // Defaults in memory for this session; the refused file is left for the user to fix.
    settingsRefusal = error;
    settings = memorySettings();
  }
  const secrets = createSecretStore(safeStorage, {
    get: () => settings.get('machineKeyCiphertext'),
    set: (value) => settings.set('machineKeyCiphertext', value),
  });
  // Entry point only: the machine key may arrive in the environment, never in argv (ps).
  const envKey = process.env['UPDATER_MACHINE_KEY'];
  if (envKey !== undefined && envKey !== '') secrets.save(envKey);

  const opened = await openUpdater(settings, secrets, settingsRefusal);
  // Outcomes go to the log file (progress would only fill it).
  opened.updater.on((event) => {
    if (event.type === 'error') log?.write('warn', `update ${event.code}: ${event.message}`);
    else if (event.type === 'applied') log?.write('info', `applied ${event.version}`);
    else if (event.type === 'up-to-date') log?.write('info', `up to date ${event.version ?? ''}`);
  });
  const activityBaseUrl = opened.baseUrl;
  controller = createAppController({
    updater: opened.updater,
    registryLabel: opened.label,
    fetchActivity: () =>
      activityBaseUrl === null
        ? Promise.resolve({
            state: 'error',
            code: 'CONFIG_INVALID',
            message: 'No registry is configured.',
          })
        : fetchActivity({ baseUrl: activityBaseUrl }),
    ...(activityBaseUrl === null
      ? {}
      : {
          createScheduler: (run: () => Promise<void>) =>
            createCheckScheduler({ run, intervalMs: settings.get('checkIntervalMs') }),
        }),
    notify: (notice) => {
      if (Notification.isSupported()) new Notification(notice).show();
    },
    log: logLine,
  });
  const c = controller;
  registerIpc(c);

  window = createWindow();
  // macOS draws template images in the menu bar's own colour.
  const trayIcon = process.platform === 'darwin' ? 'trayTemplate.png' : 'tray.png';
  tray = new Tray(nativeImage.createFromPath(join(resourcesDir, trayIcon)));
  tray.on('click', () => trayToggle.onTrayClick());
  c.onStatus((status) => {
    if (window !== null && !window.isDestroyed())
      window.webContents.send(STATUS_EVENT_CHANNEL, status);
    refreshTray();
  });
  setPaused = (paused) => {
    settings.set('paused', paused);
    c.setPaused(paused);
  };
  c.setPaused(settings.get('paused'));
  refreshTray();
  await c.start();
}

/** Closes the core (releasing its state lock), then the in-process demo server. */
export async function shutdown(): Promise<void> {
  await controller?.close();
  await registry?.demo?.close();
}

function launch(): Promise<void> {
  // Every renderer sandboxed, whatever a future window forgets to set (must precede ready).
  app.enableSandbox();
  // Windows shows toasts only for the installer shortcut's AUMID (app-identity.ts). The
  // method exists on Windows only, hence the optional call.
  app.setAppUserModelId?.(APP_ID);
  // Custom schemes get their privileges only before ready (Electron's protocol docs).
  protocol.registerSchemesAsPrivileged([APP_PRIVILEGED_SCHEME]);
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return Promise.resolve();
  }
  app.on('second-instance', showWindow);
  // A tray app keeps running with its window hidden.
  app.on('window-all-closed', () => undefined);
  // Quit waits for the core to release its lock and the demo server to close.
  let quitting = false;
  app.on('before-quit', (event) => {
    if (quitting) return;
    quitting = true;
    event.preventDefault();
    void shutdown().finally(() => app.quit());
  });
  return app
    .whenReady()
    .then(boot)
    .catch((error: unknown) => {
      const message = isUpdateError(error) ? `${error.code}: ${error.message}` : String(error);
      log?.write('error', `startup failed: ${message}`);
      console.error(`Verified Updater could not start: ${message}`);
      app.exit(1);
    });
}

/** Settles once the app has booted or given up (awaited by the composition-root test). */
export const started: Promise<void> = launch();
