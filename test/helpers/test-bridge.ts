/**
 * The Node half of the e2e test bridge: the REAL companion server (startServer, dev on), the
 * REAL core (createNodeUpdater) in a temp dir, and the REAL app controller of the main process
 * (src/app/app-controller.ts, the code index.ts wires to IPC), exposed to a Chromium page as
 * the preload's Api. Also serves the built renderer from loopback.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from '@playwright/test';
import { startServer, type RunningServer } from '#server/compose/start-server.js';
import type { Limits } from '#core/limits.js';
import { createNodeUpdater } from '#node/create-updater.js';
import { fetchActivity } from '#app/activity-client.js';
import { APP_HOST, APP_SCHEME, createAppProtocolHandler } from '#app/app-protocol.js';
import { createAppController, type AppController } from '#app/app-controller.js';
import { createCheckScheduler } from '#app/check-scheduler.js';
import { createSettingsService } from '#app/settings/settings-service.js';
import { DEFAULT_SETTINGS, memorySettings, type SettingsStore } from '#app/settings/settings.js';
import { bridgeEvents, bridgeHandlers, runOperation } from '#app/bridge-handlers.js';
import {
  EVENT_NAMES,
  OPERATION_NAMES,
  type EventName,
  type OperationName,
} from '#preload/ipc-contract.js';
import { installTestBridge, type BridgeMethod } from './test-bridge-page.js';

export const RENDERER_DIR = resolve(import.meta.dirname, '../../dist/app/renderer');

/**
 * A static file server for the built renderer, on 127.0.0.1 only. Every request goes through
 * the app's own `app://renderer` handler (src/app/app-protocol.ts), so the page gets exactly
 * the files and headers (the CSP header included) it gets in Electron.
 */
export async function serveRenderer(
  root = RENDERER_DIR,
): Promise<{ url: string; close(): Promise<void> }> {
  const handle = createAppProtocolHandler({ rootDir: root });
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const url = `${APP_SCHEME}://${APP_HOST}${path === '/' ? '/index.html' : path}`;
    handle(new Request(url, { method: req.method ?? 'GET' }))
      .then(async (response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers));
        res.end(Buffer.from(await response.arrayBuffer()));
      })
      .catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        // The page may still hold keep-alive sockets: close() alone would wait for them.
        server.closeAllConnections();
      }),
  };
}

export interface Harness {
  readonly server: RunningServer;
  readonly controller: AppController;
  readonly installDir: string;
  readonly rendererUrl: string;
  /** How often the page called each bridge method. */
  readonly calls: Record<BridgeMethod, number>;
  /** How often the window asked to open the log file. */
  readonly logOpened: { count: number };
  /**
   * The settings the window's settings screen reads and saves (in memory). Save runs the real
   * settings service; its restart here only counts (the web window's e2e restarts for real).
   */
  readonly settings: SettingsStore;
  readonly restarts: { count: number; loginItem: boolean[] };
  /** Connects a page to the controller; call before page.goto. */
  attach(page: Page): Promise<void>;
  close(): Promise<void>;
}

/** Starts server + core + controller + static renderer server. */
export async function startHarness(
  options: {
    activityTimeoutMs?: number;
    limits?: Partial<Limits>;
    /** Pins this key instead of the server's (a foreign key: every release is refused). */
    pinnedKey?: string;
    /**
     * Another registry for the core (a server CLI the test started), instead of the in-process
     * server's address; give its key as `pinnedKey`.
     */
    baseUrl?: string;
  } = {},
): Promise<Harness> {
  const server = await startServer({ dev: true, simulate: false });
  const installDir = await mkdtemp(join(tmpdir(), 'desktop-e2e-'));
  const renderer = await serveRenderer();
  const registryUrl = options.baseUrl ?? server.url;
  try {
    const mint = await fetch(`${registryUrl}/api/demo-key/mint`, { method: 'POST' });
    const minted = (await mint.json()) as { machine_key: string };
    const open = () =>
      createNodeUpdater({
        baseUrl: registryUrl,
        machineKey: minted.machine_key,
        pubkeys: [options.pinnedKey ?? server.nodePubkey],
        dir: installDir,
        ...(options.limits === undefined ? {} : { limits: options.limits }),
      });
    const logOpened = { count: 0 };
    const settings = memorySettings({
      ...DEFAULT_SETTINGS,
      baseUrl: registryUrl,
      pinnedKeys: [options.pinnedKey ?? server.nodePubkey],
    });
    const controller = createAppController({
      updater: await open(),
      // As in the app: Cancel closes the core and opens it again (open-updater.ts).
      reopen: open,
      openLog: () => {
        logOpened.count += 1;
        return Promise.resolve();
      },
      registryLabel: 'Demo registry',
      // As controllerFor (open-updater.ts): the pause is remembered in the settings.
      persistPaused: (paused) => settings.set('paused', paused),
      // As controllerFor: the update policy and the skipped version live in the settings.
      policy: () => settings.get('updatePolicy'),
      skipped: { initial: null, persist: (v) => settings.set('skippedVersion', v ?? '') },
      fetchActivity: () =>
        fetchActivity({ baseUrl: registryUrl, timeoutMs: options.activityTimeoutMs ?? 2_000 }),
      // The app's own scheduler, planned far enough out that only "Check now" runs in a test.
      createScheduler: (run) =>
        createCheckScheduler({ run, intervalMs: 3_600_000, initialDelayMs: 3_600_000 }),
    });
    await controller.start();
    let machineKey: string | null = minted.machine_key;
    const restarts = { count: 0, loginItem: [] as boolean[] };
    const settingsService = createSettingsService({
      store: settings,
      secrets: {
        load: () => machineKey,
        save: (key) => {
          machineKey = key;
          return true;
        },
      },
      machineKeyStorage: 'Kept encrypted by your system’s keychain; never shown again.',
      restart: () => {
        restarts.count += 1;
        return Promise.resolve();
      },
      setPaused: (paused) => controller.setPaused(paused),
      applyStartAtLogin: (on) => {
        restarts.loginItem.push(on);
        return Promise.resolve();
      },
      registryLabel: () => new URL(settings.get('baseUrl') || registryUrl).host,
    });
    const pages = new Set<Page>();
    const calls = Object.fromEntries(OPERATION_NAMES.map((name) => [name, 0])) as Record<
      BridgeMethod,
      number
    >;
    const events = bridgeEvents(controller);
    const push = (event: EventName, payload: unknown): void => {
      for (const page of pages) {
        page
          .evaluate(
            ([e, p]) =>
              (
                window as unknown as { __bridgePush?: (e: string, p: unknown) => void }
              ).__bridgePush?.(e, p),
            [event, payload] as const,
          )
          .catch(() => {
            // The page navigated or closed: it asks for the status again on load.
          });
      }
    };
    for (const name of EVENT_NAMES) events[name]((payload) => push(name, payload));
    return {
      server,
      controller,
      installDir,
      rendererUrl: renderer.url,
      calls,
      logOpened,
      settings,
      restarts,
      async attach(page) {
        const handlers = bridgeHandlers(controller, settingsService);
        await page.exposeFunction('__bridgeInvoke', (method: OperationName, args: unknown[]) => {
          calls[method] += 1;
          // The same argument check as both real transports (src/app/bridge-handlers.ts).
          const pending = runOperation(handlers, method, args);
          if (pending === null) throw new Error(`BAD_ARGUMENTS: ${method}`);
          return pending;
        });
        await page.addInitScript(installTestBridge, {
          operations: OPERATION_NAMES,
          events: EVENT_NAMES,
        });
        pages.add(page);
        page.on('close', () => pages.delete(page));
      },
      async close() {
        await controller.close();
        await server.close();
        await renderer.close();
        await rm(installDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await server.close();
    await renderer.close();
    await rm(installDir, { recursive: true, force: true });
    throw error;
  }
}
