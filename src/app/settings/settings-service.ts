/**
 * The settings screen's two operations (getSettings, saveSettings; docs/DESKTOP.md
 * "Settings"), Electron-free: the tray app hands it electron-store and safeStorage, the web
 * window its process's memory. Save judges the input (settings-form.ts), stores it, keeps a
 * new machine key with the secret store, applies start at login and pause, and restarts the
 * core on the new registry when anything the core was opened with changed.
 */
import type { SaveSettingsResult, SettingsInput, SettingsView } from '#preload/ipc-contract.js';
import { judgeSettings, type AcceptedSettings } from './settings-form.js';
import type { SettingsStore } from './settings.js';
import { trustedRootSummary, type TrustedRootStore } from './trusted-root.js';

export interface SettingsServiceDeps {
  readonly store: SettingsStore;
  readonly secrets: { load(): string | null; save(machineKey: string): boolean };
  /** Where a machine key entered here is kept, in plain words (shown under its field). */
  readonly machineKeyStorage: string;
  /** Closes the core and opens it again on the stored settings (app-session.ts). */
  readonly restart: () => Promise<void>;
  /** Pauses or resumes the schedule (the controller also remembers it in the store). */
  readonly setPaused: (paused: boolean) => void;
  /** Turns start at login on or off (login-item.ts); omitted where unavailable. */
  readonly applyStartAtLogin?: (on: boolean) => Promise<void>;
  /** What the status card calls the registry in use after a restart. */
  readonly registryLabel: () => string;
  /** Where a trusted root given here is kept (trusted-root.ts); omitted: none can be. */
  readonly trustedRoot?: TrustedRootStore;
}

export interface SettingsService {
  get(): SettingsView;
  save(input: SettingsInput): Promise<SaveSettingsResult>;
}

/** The stored settings as the screen shows them. */
function viewOf(deps: SettingsServiceDeps): SettingsView {
  const { store } = deps;
  return {
    registryUrl: store.get('baseUrl'),
    pinnedKeys: [...store.get('pinnedKeys')],
    machineKeySet: deps.secrets.load() !== null,
    machineKeyStorage: deps.machineKeyStorage,
    ...(deps.trustedRoot === undefined
      ? {}
      : { trustedRootKept: trustedRootSummary(deps.trustedRoot.load()) }),
    checkIntervalMinutes: Math.round(store.get('checkIntervalMs') / 60_000),
    paused: store.get('paused'),
    startAtLogin: store.get('startAtLogin'),
    startAtLoginAvailable: deps.applyStartAtLogin !== undefined,
    requireNonce: store.get('requireNonce'),
    updatePolicy: store.get('updatePolicy'),
    selfUpdate: store.get('selfUpdate'),
    minimiseToBackground: store.get('minimiseToBackground'),
  };
}

/** True when anything the core was opened with changes (then Save restarts it). */
function coreChanges(store: SettingsStore, next: AcceptedSettings): boolean {
  return (
    next.baseUrl !== store.get('baseUrl') ||
    next.pinnedKeys.join(',') !== store.get('pinnedKeys').join(',') ||
    next.checkIntervalMs !== store.get('checkIntervalMs') ||
    next.requireNonce !== store.get('requireNonce') ||
    next.machineKey !== null ||
    next.trustedRoot !== undefined ||
    next.forgetTrustedRoot
  );
}

/** Stores what the running code reads at each use (no restart needed for these). */
function storeValues(store: SettingsStore, next: AcceptedSettings): void {
  store.set('baseUrl', next.baseUrl);
  store.set('pinnedKeys', [...next.pinnedKeys]);
  store.set('checkIntervalMs', next.checkIntervalMs);
  store.set('requireNonce', next.requireNonce);
  store.set('updatePolicy', next.updatePolicy);
  store.set('selfUpdate', next.selfUpdate);
  store.set('minimiseToBackground', next.minimiseToBackground);
}

/** Applies start at login when it changed; the words to add when it could not be. */
async function applyLogin(
  deps: SettingsServiceDeps & { applyStartAtLogin: (on: boolean) => Promise<void> },
  on: boolean,
): Promise<string> {
  try {
    await deps.applyStartAtLogin(on);
    deps.store.set('startAtLogin', on);
    return '';
  } catch {
    return ' Start at login could not be changed; see the log file.';
  }
}

async function saveNow(
  deps: SettingsServiceDeps,
  input: SettingsInput,
): Promise<SaveSettingsResult> {
  const judged = judgeSettings(input, {
    machineKeyKept: deps.secrets.load() !== null,
    startAtLoginAvailable: deps.applyStartAtLogin !== undefined,
    trustedRootKept: (deps.trustedRoot?.load() ?? null) !== null,
    storedBaseUrl: deps.store.get('baseUrl'),
  });
  if (!judged.ok) return { ok: false, problems: judged.problems };
  const next = judged.accepted;
  if (next.trustedRoot !== undefined) {
    if (deps.trustedRoot === undefined) {
      const words = 'This window cannot keep a trusted root.';
      return { ok: false, problems: [{ field: 'trustedRoot', words }] };
    }
    // Kept before anything else is stored: the restart below opens the core on it.
    await deps.trustedRoot.save(next.trustedRoot);
  }
  if (next.forgetTrustedRoot) await deps.trustedRoot?.forget();
  const coreChanged = coreChanges(deps.store, next);
  storeValues(deps.store, next);
  let keyWords = '';
  if (next.machineKey !== null && !deps.secrets.save(next.machineKey)) {
    // Kept in memory only (no keychain, or the web window): said where it is kept.
    keyWords = ` ${deps.machineKeyStorage}`;
  }
  const { applyStartAtLogin } = deps;
  const loginChanges =
    next.startAtLogin !== deps.store.get('startAtLogin') && applyStartAtLogin !== undefined;
  const loginWords = loginChanges
    ? await applyLogin({ ...deps, applyStartAtLogin }, next.startAtLogin)
    : '';
  if (coreChanged) await deps.restart();
  deps.setPaused(next.paused);
  const where = next.baseUrl === '' ? 'the demo registry' : deps.registryLabel();
  const words = coreChanged ? `Saved. The updater restarted on ${where}.` : 'Saved.';
  return { ok: true, words: `${words}${keyWords}${loginWords}`, settings: viewOf(deps) };
}

export function createSettingsService(deps: SettingsServiceDeps): SettingsService {
  /** One save at a time: a second Save waits for the restart of the first. */
  let queue: Promise<unknown> = Promise.resolve();
  return {
    get: () => viewOf(deps),
    save(input) {
      const run = queue.then(() => saveNow(deps, input));
      queue = run.catch(() => undefined);
      return run;
    },
  };
}
