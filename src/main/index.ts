/**
 * The Electron composition root (docs/DESKTOP.md §Layout). Only wiring lives here: every
 * decision is in a small module with its own unit tests (open-updater, app-controller,
 * tray-menu, tray-toggle, window-position, ipc-guard, first-run, secret-store, settings,
 * activity-client, log-file); what the running app holds is one `TrayApp` record (tray-app.ts).
 * Security: Electron's checklist (contextIsolation, sandbox, no nodeIntegration, the page on
 * our own app:// scheme with a strict CSP header and meta tag, navigation and new windows
 * denied, every IPC sender and argument checked, permissions denied).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, Menu, protocol, safeStorage, session, shell } from 'electron';
import { isUpdateError } from '#core/errors.js';
import { APP_ID } from './app-identity.js';
import {
  APP_ENTRY_URL,
  APP_PRIVILEGED_SCHEME,
  APP_SCHEME,
  createAppProtocolHandler,
} from '#app/app-protocol.js';
import { bridgeHandlers } from '#app/bridge-handlers.js';
import { startDemoServer } from '#app/registry/demo-server.js';
import { registerIpcHandlers } from './ipc-handlers.js';
import { openLogFile, type LogFile } from '#app/log-file.js';
import { applyStartAtLogin } from './login-item.js';
import { firstLaunchNotice } from './first-launch-notice.js';
import { closeAction, type LaunchPlan } from './launch-mode.js';
import { createMainWindow } from './main-window.js';
import { createNotificationCenter, type NotificationCenter } from './notification-center.js';
import { attachAppLogin, proxyAwareNetFetch } from './net-fetcher.js';
import { createProxyLogin } from './proxy-login.js';
import { askInPromptWindow } from './proxy-prompt.js';
import { openAppSession, type AppSession } from '#app/app-session.js';
import { openSessionPart, type LogLevel } from '#app/open-updater.js';
import { machineKeyStorageWords, sessionSeal } from '#app/settings/secret-store.js';
import { createSettingsService } from '#app/settings/settings-service.js';
import { createAppSelfUpdate } from './app-self-update.js';
import { parseSelfUpdateMode } from '#app/self-update/self-update-mode.js';
import type { WindowSection } from '#preload/ipc-contract.js';
import { decideLaunch, loginItemDeps, tellWhereTheAppLives } from './launch-wiring.js';
import type { InstalledVerifyReport } from '#app/self-update/verified-copy.js';
import type { SettingsStore } from '#app/settings/settings.js';
import { openStores, type Stores } from './stores.js';
import { closeTrayApp, emptyTrayApp, firstShow, refreshTray, showWindow } from './tray-app.js';
import { attachShutdown, createTrayIcon, forwardEvents } from './tray-app-wiring.js';
import { createTrayToggle } from './tray-toggle.js';
import { attachWindowLifecycle } from './window-lifecycle.js';
import { escHidesWindow } from '#app/window-keys.js';

const here = dirname(fileURLToPath(import.meta.url));
/** dist/app/main -> dist/app; inside the package, app.asar/dist/app. */
const appDir = join(here, '..');
const resourcesDir = app.isPackaged
  ? join(process.resourcesPath, 'resources')
  : join(here, '..', '..', '..', 'resources');

const trayApp = emptyTrayApp();
/** Tray click and blur share one toggle, so the press that blurs the window does not reopen it. */
const trayToggle = createTrayToggle({
  nowMs: () => Date.now(),
  isVisible: () => trayApp.window?.isVisible() === true,
  show: () => showWindow(trayApp),
  hide: () => trayApp.window?.hide(),
});

/** Packaged builds have no menu; every permission is denied; the page comes from app://. */
function secureSession(): void {
  // Packaged builds have no application menu, so no Reload / Toggle DevTools shortcuts.
  if (app.isPackaged) Menu.setApplicationMenu(null);
  // Deny every permission request (camera, notifications from the page, …).
  session.defaultSession.setPermissionRequestHandler((_wc, _perm, done) => done(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
  protocol.handle(APP_SCHEME, createAppProtocolHandler({ rootDir: join(appDir, 'renderer') }));
}

/**
 * Opens the one session of the run (Save in the settings restarts the core inside it), with
 * proxy sign-in for the app's own requests and the self-update hook.
 */
async function openController(
  log: LogFile,
  notices: NotificationCenter,
  { settings, refusal, secrets, trustedRoot }: Stores,
): Promise<AppSession> {
  // A proxy that asks for a password is asked about in a prompt window, for the app's own
  // requests and for web contents alike (docs/DESKTOP.md "Proxy sign-in").
  const proxyLogin = createProxyLogin({
    ask: askInPromptWindow,
    seal: sessionSeal(safeStorage),
    report: (level, message) => log.write(level, message),
  });
  const answerChallenge = (challenge: Parameters<typeof proxyLogin.onChallenge>[0]) =>
    proxyLogin.onChallenge(challenge);
  attachAppLogin(app, answerChallenge);
  // The app's own installers arrive as registry targets and replace it through the verified
  // path (docs/RELEASING.md "Self-update targets").
  const selfUpdate = createAppSelfUpdate({
    notify: (notice) => notices.show(notice),
    log: (level, message) => log.write(level, message),
    mode: () => parseSelfUpdateMode(settings.get('selfUpdate')),
  });
  const openerDeps = {
    // Called by open-updater.ts once the core applied a release (the hook it needs).
    afterApplied: (stateDir: string, verify: () => Promise<InstalledVerifyReport>) =>
      selfUpdate.afterApplied(stateDir, verify),
    settings,
    settingsRefusal: refusal,
    secrets,
    resourcesDir,
    userDataDir: app.getPath('userData'),
    keptTrustedRoot: () => trustedRoot.load(),
    startDemoServer,
    log: (level: LogLevel, message: string) => log.write(level, message),
    // The system proxy, PAC, proxy sign-in and certificate store (docs/DESKTOP.md "Network").
    fetch: proxyAwareNetFetch(answerChallenge),
  };
  return openAppSession(() =>
    openSessionPart(openerDeps, {
      settings,
      notify: (notice) => notices.show(notice),
      log: (level, message) => log.write(level, message),
      openLog: async () => {
        // shell.openPath answers '' on success, else the reason.
        const problem = await shell.openPath(log.path);
        if (problem !== '') throw new Error(problem);
      },
    }),
  );
}

/** The window's operations answered by the controller, and start at login re-applied. */
function wireSettings(c: AppSession, { settings, secrets, trustedRoot }: Stores): void {
  const settingsService = createSettingsService({
    store: settings,
    secrets,
    trustedRoot,
    machineKeyStorage: machineKeyStorageWords(safeStorage),
    restart: () => c.restart(),
    setPaused: (paused) => c.setPaused(paused),
    applyStartAtLogin: (on) => applyStartAtLogin(on, loginItemDeps()),
    registryLabel: () => c.label(),
  });
  registerIpcHandlers(bridgeHandlers(c, settingsService), () =>
    trayApp.window === null || trayApp.window.isDestroyed() ? null : trayApp.window.webContents.id,
  );
  // On: re-applied at every start (an AppImage may have moved). Off (the default) touches
  // nothing; turning it off in the settings removes what was set.
  if (settings.get('startAtLogin')) {
    applyStartAtLogin(true, loginItemDeps()).catch((error: unknown) =>
      trayApp.log?.write('warn', `start at login not applied: ${String(error)}`),
    );
  }
}

/** The window, its close rule (launch-mode.ts) and its OS shutdown handling. */
function openWindow(plan: LaunchPlan, settings: SettingsStore): void {
  const win = createMainWindow({
    preloadPath: join(appDir, 'preload', 'index.cjs'),
    onBlur: () => trayToggle.onBlur(),
    // Packaged builds: no DevTools (and no default menu with its shortcuts, see launch()).
    devTools: !app.isPackaged,
    style: plan.windowStyle,
    iconPath: join(resourcesDir, 'icon.png'),
  });
  trayApp.window = win;
  // Esc hides the tray window (window-keys.ts); the page still gets the key.
  win.webContents.on('before-input-event', (_event, input) => {
    if (escHidesWindow(input, plan.windowStyle === 'tray')) win.hide();
  });
  attachWindowLifecycle(win, {
    // Read at each close, so a change in the settings applies at once.
    closeAction: () => closeAction(plan.windowStyle, settings.get('minimiseToBackground')),
    quit: () => app.quit(),
    isQuitting: () => trayApp.quitting,
    nowMs: () => Date.now(),
    log: (level, message) => trayApp.log?.write(level, message),
    entryUrl: APP_ENTRY_URL,
  });
  attachShutdown(trayApp, win, shutdown, () => app.exit(0));
}

async function boot(): Promise<void> {
  const log = openLogFile({ dir: app.getPath('logs') });
  trayApp.log = log;
  const plan = await decideLaunch();
  trayApp.windowStyle = plan.windowStyle;
  log.write(
    'info',
    `launch: ${plan.atLogin ? 'at login' : 'by the user'}, ${plan.windowStyle} window`,
  );
  // Notifications carry the app icon and open the window when clicked.
  const notices = createNotificationCenter({
    iconPath: join(resourcesDir, 'icon.png'),
    open: () => showWindow(trayApp),
  });
  secureSession();
  const stores = await openStores((message) => trayApp.log?.write('error', message));
  const c = await openController(log, notices, stores);
  trayApp.controller = c;
  wireSettings(c, stores);
  openWindow(plan, stores.settings);
  if (plan.windowStyle === 'tray') {
    createTrayIcon(trayApp, resourcesDir, () => trayToggle.onTrayClick());
  }
  // A launch by hand shows the window; one at login stays in the tray (launch-mode.ts).
  firstShow(trayApp, plan.firstShow);
  tellWhereTheAppLives(() =>
    notices.show(firstLaunchNotice(process.platform, plan.windowStyle === 'tray')),
  ).catch((error: unknown) => log.write('warn', `first-launch notice: ${String(error)}`));
  // Every push event of the contract goes to the window; a status change also to the tray.
  const sections = new Set<(section: WindowSection) => void>();
  trayApp.showSection = (section) => {
    for (const listener of sections) listener(section);
  };
  forwardEvents(trayApp, c, (listener) => {
    sections.add(listener);
    return () => sections.delete(listener);
  });
  c.onStatus(() => refreshTray(trayApp));
  // The controller remembers the choice in the settings (open-updater.ts).
  trayApp.setPaused = (paused) => c.setPaused(paused);
  refreshTray(trayApp);
  await c.start();
}

let closing: Promise<void> | null = null;

/**
 * Closes the core (releasing its state lock), then the in-process demo server; once, however
 * many ways the app is asked to quit (quit, OS shutdown).
 */
export function shutdown(): Promise<void> {
  closing ??= closeTrayApp(trayApp);
  return closing;
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
  app.on('second-instance', () => showWindow(trayApp));
  // macOS: a relaunch from Finder or the Dock while running shows the window.
  app.on('activate', () => showWindow(trayApp));
  // A tray app keeps running with its window hidden.
  app.on('window-all-closed', () => undefined);
  // Quit waits for the core to release its lock and the demo server to close.
  let quitting = false;
  app.on('before-quit', (event) => {
    if (quitting) return;
    quitting = true;
    trayApp.quitting = true;
    event.preventDefault();
    void shutdown().finally(() => app.quit());
  });
  return app
    .whenReady()
    .then(boot)
    .catch((error: unknown) => {
      const message = isUpdateError(error) ? `${error.code}: ${error.message}` : String(error);
      trayApp.log?.write('error', `startup failed: ${message}`);
      console.error(`Verified Updater could not start: ${message}`);
      app.exit(1);
    });
}

/** Settles once the app has booted or given up (awaited by the composition-root test). */
export const started: Promise<void> = launch();
