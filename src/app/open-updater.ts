/**
 * Opens the app's updater without Electron: chooses the registry (src/app/registry/first-run.ts),
 * opens the core on it, and wires the app controller (schedule, activity, notifications).
 * The Electron composition root (src/main/index.ts) hands it Electron's paths, safeStorage and
 * notifications; everything it decides is testable with plain fakes.
 *
 * Refusal policy (docs/DESKTOP.md §Decisions, "Configured registry"): a refused configuration
 * (UpdateError: refused settings file, no pinned key, bad URL, no machine key, LOCKED) does
 * not kill the app: it runs a refusing updater so the window shows the code in plain words.
 * Anything else is a bug and propagates.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isUpdateError, UpdateError } from '#core/errors.js';
import type { UpdaterApi, VerifyReport } from '#core/updater-api.js';
import { createNodeUpdater } from '#node/create-updater.js';
import type { SessionFetch } from '#node/http/index.js';
import { fetchActivity } from './activity-client.js';
import { createAppController, type AppController } from './app-controller.js';
import type { SessionPart } from './app-session.js';
import { createCheckScheduler } from './check-scheduler.js';
import { chooseRegistry, type DemoServer } from './registry/first-run.js';
import type { Notice } from './notifications.js';
import { refusingUpdater } from './refusing-updater.js';
import type { SecretStore } from './settings/secret-store.js';
import { readShippedRegistry, SHIPPED_REGISTRY_FILE } from './registry/shipped-registry.js';
import type { SettingsStore } from './settings/settings.js';

export type LogLevel = 'info' | 'warn' | 'error';

export interface OpenUpdaterDeps {
  readonly settings: SettingsStore;
  /** Set when the settings file was refused: it decides nothing, not even "start the demo". */
  readonly settingsRefusal: UpdateError | null;
  readonly secrets: Pick<SecretStore, 'load' | 'save'>;
  /** The app's resources/ folder (pinned-key.txt, an optional registry.json). */
  readonly resourcesDir: string;
  /** A TUF root file given by the user (`serve --trusted-root`): read before the shipped one. */
  readonly trustedRootFile?: string;
  /** The root kept from the settings screen (settings/trusted-root.ts), read at each open. */
  readonly keptTrustedRoot?: () => Uint8Array | null;
  /** Where the install and the demo registry's data live (Electron's userData). */
  readonly userDataDir: string;
  /** Starts the demo registry with its data in `dataDir` (src/app/registry/demo-server.ts). */
  readonly startDemoServer: (dataDir: string) => Promise<DemoServer>;
  readonly log: (level: LogLevel, message: string) => void;
  /**
   * Every request of the app goes through this (the tray app: Electron's net.fetch, so the
   * system proxy and certificate store apply; docs/DESKTOP.md "Network"). Default: the core's
   * node:http fetcher and the global fetch.
   */
  readonly fetch?: SessionFetch;
  /**
   * Told after the core applied a release, with the install's state directory and its verify:
   * the app's own installers among the targets update the app (docs/RELEASING.md).
   */
  readonly afterApplied?: (stateDir: string, verify: () => Promise<VerifyReport>) => Promise<void>;
}

/** The core the app runs, and what the window and the tray say about it. */
export interface OpenedUpdater {
  readonly updater: UpdaterApi;
  readonly label: string;
  /** The registry's base URL; null when the configuration was refused. */
  readonly baseUrl: string | null;
  /** The in-process demo registry, closed after the core on quit. */
  readonly demo: DemoServer | null;
  /** Opens the same core again (Cancel closes it to abort a run); null when refused. */
  readonly reopen: (() => Promise<UpdaterApi>) | null;
  /** The session fetch the core uses; the activity ranking goes through it too. */
  readonly fetch?: SessionFetch;
}

/** Reads resources/pinned-key.txt; null when the build ships none (or an empty one). */
async function readBundledKey(resourcesDir: string): Promise<string | null> {
  try {
    const text = (await readFile(join(resourcesDir, 'pinned-key.txt'), 'utf8')).trim();
    return text === '' ? null : text;
  } catch {
    return null;
  }
}

/** Reads resources/registry.json; null when the build ships none. */
async function readShippedText(resourcesDir: string): Promise<string | null> {
  try {
    return await readFile(join(resourcesDir, SHIPPED_REGISTRY_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    // Present but unreadable: refused like a broken file, never "no file, run the demo".
    throw new UpdateError('CONFIG_INVALID', 'The shipped registry.json cannot be read.', {
      cause: error,
    });
  }
}

/**
 * Reads the TUF root the build ships: the file registry.json names (which must then exist), else
 * resources/root.json when present. null: none shipped.
 */
async function readShippedRoot(
  resourcesDir: string,
  named: string | undefined,
): Promise<Uint8Array | null> {
  try {
    const path = resourcesDir === '' ? (named ?? '') : join(resourcesDir, named ?? 'root.json');
    return new Uint8Array(await readFile(path));
  } catch (error) {
    if (named === undefined && (error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new UpdateError(
      'CONFIG_INVALID',
      `The shipped trusted root ${named ?? 'root.json'} cannot be read.`,
      {
        cause: error,
      },
    );
  }
}

/** Where chooseRegistry reads the settings, the shipped files and the demo from. */
function registrySources(deps: OpenUpdaterDeps): Parameters<typeof chooseRegistry>[0] {
  return {
    settings: {
      baseUrl: deps.settings.get('baseUrl'),
      pinnedKeys: deps.settings.get('pinnedKeys'),
      trustedRoot: deps.keptTrustedRoot?.() ?? null,
    },
    readBundledKey: () => readBundledKey(deps.resourcesDir),
    readShippedRegistry: () => readShippedRegistry(() => readShippedText(deps.resourcesDir)),
    readTrustedRoot: (name) =>
      deps.trustedRootFile === undefined
        ? readShippedRoot(deps.resourcesDir, name)
        : readShippedRoot('', deps.trustedRootFile),
    secrets: deps.secrets,
    startDemoServer: () => deps.startDemoServer(join(deps.userDataDir, 'demo-registry')),
    ...(deps.fetch === undefined ? {} : { fetch: deps.fetch }),
  };
}

/** Chooses the registry and opens the core on it; never rejects with an UpdateError. */
export async function openUpdater(deps: OpenUpdaterDeps): Promise<OpenedUpdater> {
  let demo: DemoServer | null = null;
  try {
    if (deps.settingsRefusal !== null) throw deps.settingsRefusal;
    const registry = await chooseRegistry(registrySources(deps));
    demo = registry.demo;
    const requireNonce = deps.settings.get('requireNonce');
    deps.log('info', `registry: ${registry.label}`);
    const dir = join(deps.userDataDir, registry.demo === null ? 'install' : 'demo-install');
    const open = async (): Promise<UpdaterApi> => {
      const updater = await createNodeUpdater({
        baseUrl: registry.baseUrl,
        machineKey: registry.machineKey,
        pubkeys: [...registry.pubkeys],
        ...(registry.trustedRoot === null ? {} : { trustedRoot: registry.trustedRoot }),
        requireNonce,
        dir,
        ...(deps.fetch === undefined ? {} : { fetch: deps.fetch }),
      });
      // Every core opened (the first, and each after a Cancel) hands its applied releases on.
      const after = deps.afterApplied;
      if (after !== undefined) {
        updater.on((e) => {
          if (e.type === 'applied') void after(dir, () => updater.verify());
        });
      }
      return updater;
    };
    const updater = await open();
    return {
      updater,
      label: registry.label,
      baseUrl: registry.baseUrl,
      demo,
      reopen: open,
      ...(deps.fetch === undefined ? {} : { fetch: deps.fetch }),
    };
  } catch (error) {
    if (!isUpdateError(error)) throw error;
    deps.log('error', `configuration refused: ${error.code}: ${error.message}`);
    await demo?.close();
    return {
      updater: refusingUpdater(error),
      label: 'Not configured',
      baseUrl: null,
      demo: null,
      reopen: null,
    };
  }
}

export interface AppControllerWiring {
  readonly settings: SettingsStore;
  readonly notify: (notice: Notice) => void;
  readonly log: (level: LogLevel, message: string) => void;
  /** Opens the log file in the system's viewer (the tray app; the web window has none). */
  readonly openLog?: () => Promise<void>;
  /** Where the log goes when there is no file to open (the web window: the terminal). */
  readonly logLocation?: string;
}

/**
 * The controller over an opened updater: automatic checks on the settings' interval (none
 * when the configuration was refused), the activity ranking from the same registry, outcomes
 * in the log (progress would only fill it).
 */
export function controllerFor(opened: OpenedUpdater, wiring: AppControllerWiring): AppController {
  opened.updater.on((event) => {
    if (event.type === 'error') wiring.log('warn', `update ${event.code}: ${event.message}`);
    else if (event.type === 'applied') wiring.log('info', `applied ${event.version}`);
    else if (event.type === 'up-to-date') wiring.log('info', `up to date ${event.version ?? ''}`);
  });
  const baseUrl = opened.baseUrl;
  return createAppController({
    updater: opened.updater,
    registryLabel: opened.label,
    fetchActivity: () =>
      baseUrl === null
        ? Promise.resolve({
            state: 'error',
            code: 'CONFIG_INVALID',
            message: 'No registry is configured.',
          })
        : fetchActivity({
            baseUrl,
            ...(opened.fetch === undefined ? {} : { fetch: opened.fetch }),
          }),
    ...(baseUrl === null
      ? {}
      : {
          createScheduler: (run: () => Promise<void>) =>
            createCheckScheduler({ run, intervalMs: wiring.settings.get('checkIntervalMs') }),
        }),
    notify: wiring.notify,
    log: (message) => wiring.log('info', message),
    persistPaused: (paused) => wiring.settings.set('paused', paused),
    policy: () => wiring.settings.get('updatePolicy'),
    skipped: {
      initial: skippedAtStart(wiring.settings),
      persist: (version) => wiring.settings.set('skippedVersion', version ?? ''),
    },
    ...(opened.reopen === null ? {} : { reopen: opened.reopen }),
    ...(wiring.openLog === undefined ? {} : { openLog: wiring.openLog }),
    ...(wiring.logLocation === undefined ? {} : { logLocation: wiring.logLocation }),
  });
}

/**
 * One part of the app session (app-session.ts): the core on the registry the settings name
 * now, its controller with the remembered pause, and the demo registry to close after it.
 */
export async function openSessionPart(
  deps: OpenUpdaterDeps,
  wiring: AppControllerWiring,
): Promise<SessionPart> {
  const opened = await openUpdater(deps);
  const controller = controllerFor(opened, wiring);
  controller.setPaused(wiring.settings.get('paused'));
  const demo = opened.demo;
  return {
    controller,
    label: opened.label,
    closeAfter: demo === null ? null : () => demo.close(),
  };
}

/** The version skipped in an earlier session, or null ('' is stored for none). */
function skippedAtStart(settings: SettingsStore): string | null {
  const version = settings.get('skippedVersion');
  return version === '' ? null : version;
}
