/**
 * The headless app behind the web window (`updater serve`): the same pieces as the tray app
 * (src/main/index.ts) without Electron: registry choice and core (src/app/open-updater.ts,
 * with the same refusal policy and data layout), the app controller with its scheduler, and
 * the bridge contract served over HTTP (web-window-server.ts) instead of IPC.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppController } from '#app/app-controller.js';
import { bridgeEvents, bridgeHandlers } from '#app/bridge-handlers.js';
import { startDemoServer } from '#app/registry/demo-server.js';
import type { Notice } from '#app/notifications.js';
import { openAppSession, type AppSession } from '#app/app-session.js';
import { openSessionPart, type LogLevel } from '#app/open-updater.js';
import { createSettingsService } from '#app/settings/settings-service.js';
import { memoryTrustedRoot, type TrustedRootStore } from '#app/settings/trusted-root.js';
import type { SettingsStore } from '#app/settings/settings.js';
import { UpdateError } from '#core/errors.js';
import type { SessionFetch } from '#node/http/index.js';
import { startWebWindow, type WebWindow } from './web-window-server.js';
import type { SocketLimits } from '#shared/socket-limits.js';

export interface WebAppOptions {
  readonly listen: { readonly host: string; readonly port: number };
  /** Install state and demo registry, laid out as the tray app's userData. */
  readonly dataDir: string;
  readonly settings: SettingsStore;
  readonly machineKey: string;
  /** The repository's or package's resources/ (pinned-key.txt). */
  readonly resourcesDir: string;
  /** The built desktop app (dist/app): renderer/ and web/. */
  readonly appDir: string;
  readonly log: (level: LogLevel, message: string) => void;
  readonly notify: (notice: Notice) => void;
  /** Fixed token (tests); default random. */
  readonly token?: string;
  /** Every request of the app (the CLI's proxy fetch, src/cli/cli-proxy.ts); default node:http. */
  readonly fetch?: SessionFetch;
  /** `serve --trusted-root FILE`: the TUF root trust starts from, before the shipped one. */
  readonly trustedRootFile?: string;
  /** The window's timeouts and connection cap (default WEB_SOCKET_LIMITS, web-limits.ts). */
  readonly socketLimits?: Partial<SocketLimits>;
}

export interface WebApp {
  readonly window: WebWindow;
  readonly controller: AppController;
  readonly registryLabel: string;
  close(): Promise<void>;
}

/** The files the web window serves, checked before anything starts. */
export async function webWindowFiles(
  appDir: string,
): Promise<{ renderer: string; bridge: string }> {
  const files = { renderer: join(appDir, 'renderer'), bridge: join(appDir, 'web', 'web.js') };
  try {
    await access(join(files.renderer, 'index.html'));
    await access(files.bridge);
  } catch (cause) {
    throw new UpdateError(
      'CONFIG_INVALID',
      `the window's files are not built in ${appDir}: run \`npm run build:app\` first`,
      { cause },
    );
  }
  return files;
}

/** This process's memory as the secret store (docs/DESKTOP.md "Settings"). */
function memorySecrets(initial: string): SecretsInMemory {
  // The key comes from the flag or the environment each start; one entered in the settings
  // is kept in this process's memory only.
  let machineKey = initial === '' ? null : initial;
  return {
    load: () => machineKey,
    save: (key: string) => {
      machineKey = key;
      return false;
    },
  };
}

interface SecretsInMemory {
  load(): string | null;
  save(key: string): boolean;
}

/** The session on the registry the settings name (Save restarts it inside). */
function openWebSession(
  options: WebAppOptions,
  secrets: SecretsInMemory,
  trustedRoot: TrustedRootStore,
): Promise<AppSession> {
  return openAppSession(() =>
    openSessionPart(
      {
        settings: options.settings,
        settingsRefusal: null,
        secrets,
        resourcesDir: options.resourcesDir,
        userDataDir: options.dataDir,
        keptTrustedRoot: () => trustedRoot.load(),
        ...(options.trustedRootFile === undefined
          ? {}
          : { trustedRootFile: options.trustedRootFile }),
        startDemoServer,
        log: options.log,
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      },
      {
        settings: options.settings,
        notify: options.notify,
        log: options.log,
        logLocation: 'printed in the terminal that runs `updater serve` (its standard error)',
      },
    ),
  );
}

/** Opens the updater, starts its schedule and serves the window; close() undoes all of it. */
export async function openWebApp(options: WebAppOptions): Promise<WebApp> {
  const files = await webWindowFiles(options.appDir);
  const secrets = memorySecrets(options.machineKey);
  // Kept in memory, as the serve process keeps every setting (docs/DESKTOP.md "Settings").
  const trustedRoot = memoryTrustedRoot();
  const session = await openWebSession(options, secrets, trustedRoot);
  const settings = createSettingsService({
    store: options.settings,
    secrets,
    trustedRoot,
    machineKeyStorage:
      'Kept in the memory of this updater serve process only: give it again (UPDATER_MACHINE_KEY) when serve restarts.',
    restart: () => session.restart(),
    setPaused: (paused) => session.setPaused(paused),
    registryLabel: () => session.label(),
  });
  let window: WebWindow;
  try {
    window = await startWebWindow({
      listen: options.listen,
      rendererDir: files.renderer,
      bridgeScript: files.bridge,
      handlers: bridgeHandlers(session, settings),
      events: bridgeEvents(session),
      // The app's log has no debug level: a client that left (debug) is not worth a line.
      log: (level, message) => {
        if (level === 'error') options.log('error', message);
      },
      ...(options.token === undefined ? {} : { token: options.token }),
      ...(options.socketLimits === undefined ? {} : { socketLimits: options.socketLimits }),
    });
  } catch (error) {
    await session.close();
    throw error;
  }
  await session.start();
  return {
    window,
    controller: session,
    registryLabel: session.label(),
    async close() {
      await window.close();
      await session.close();
    },
  };
}
