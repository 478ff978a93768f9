/**
 * The app's answers to the bridge contract (src/preload/ipc-contract.ts), for every transport:
 * Electron IPC (src/main/ipc-handlers.ts) and the web window's HTTP server.
 * Electron-free. A new operation of the contract needs one handler here and nothing else.
 */
import {
  OPERATIONS,
  type BridgeEventSources,
  type BridgeHandlers,
  type OperationArgs,
  type OperationName,
} from '#preload/ipc-contract.js';
import type { AppController } from './app-controller.js';
import type { SettingsService } from './settings/settings-service.js';

/** What the controller and the settings answer for each operation of the contract. */
export function bridgeHandlers(c: AppController, settings: SettingsService): BridgeHandlers {
  return {
    getStatus: () => c.getStatus(),
    checkNow: () => c.checkNow(),
    getActivity: () => c.getActivity(),
    cancel: () => c.cancel(),
    rollBack: () => c.rollBack(),
    verify: () => c.verify(),
    openLog: () => c.openLog(),
    setPaused: (paused) => c.setPaused(paused),
    installNow: () => c.installNow(),
    skipVersion: (version) => c.skipVersion(version),
    getSettings: () => settings.get(),
    saveSettings: (input) => settings.save(input),
  };
}

/** Never fires: where nothing asks the window to show a section (the web window). */
const noSection: BridgeEventSources['section'] = () => () => undefined;

/**
 * The push events, by contract event name: the controller's status, and `section` from
 * whoever may ask for one (the tray's "Settings…").
 */
export function bridgeEvents(
  c: AppController,
  section: BridgeEventSources['section'] = noSection,
): BridgeEventSources {
  return { status: (listener) => c.onStatus(listener), section };
}

/**
 * Checks the raw arguments of one call against the contract and runs its handler; null when
 * the arguments are refused (the transport answers BAD_ARGUMENTS without running anything).
 */
export function runOperation<K extends OperationName>(
  handlers: BridgeHandlers,
  name: K,
  raw: readonly unknown[],
): Promise<unknown> | null {
  const args = OPERATIONS[name].parseArgs(raw);
  if (args === null) return null;
  const handler = handlers[name] as (...a: OperationArgs<K>) => unknown;
  return Promise.resolve().then(() => handler(...args));
}
