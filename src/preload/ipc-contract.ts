/**
 * The one contract between the app and its window, whatever carries it: Electron IPC (the
 * preload, src/preload/index.ts) or HTTP with server-sent events (the web window,
 * src/preload/web-bridge.ts and src/web/). It names every operation and push event, the
 * plain JSON- and structured-clone-safe shapes that cross, and how arguments are checked.
 * Both bridges, the main process, the web server and the e2e test bridge derive their types
 * from it, so they can never drift apart.
 *
 * Adding an operation: one entry in `BridgeOperations` (types) and one in `OPERATIONS`
 * (channel + argument check), one handler in src/app/bridge-handlers.ts. No transport code:
 * both bridges and both servers are generic over this table (docs/DESKTOP.md §Bridge).
 */
import type { ActiveMachine } from '#protocol/activity.js';
import {
  parseSettingsInput,
  type SaveSettingsResult,
  type SettingsInput,
  type SettingsView,
} from './settings-contract.js';

export type {
  FieldProblem,
  SaveSettingsResult,
  SettingsField,
  SettingsInput,
  SettingsView,
  SelfUpdateChoice,
  UpdatePolicy,
} from './settings-contract.js';
export { SELF_UPDATE_CHOICES, UPDATE_POLICIES } from './settings-contract.js';

export type {
  UpdatePhase,
  StatusState,
  StatusNotice,
  KeptDownload,
  OfferView,
  ErrorKind,
  ErrorView,
  ProgressView,
  AppStatus,
} from './status-contract.js';
import type { AppStatus, ErrorView } from './status-contract.js';

/** Name of the global the window reads (`window.updater`). */
export const API_GLOBAL = 'updater';

/** The answer of an action the window asked for (roll back, verify, open the log). */
export type ActionResult =
  { readonly ok: true; readonly words: string } | { readonly ok: false; readonly error: ErrorView };

/** The activity widget's data, already classified by the main process. */
export type ActivityResult =
  | {
      readonly state: 'ok';
      readonly machines: readonly ActiveMachine[];
      /** RFC 3339 time the registry computed the ranking ('' when it sent none). */
      readonly generatedAt: string;
      /** Completed time units counted (the body's `window`). */
      readonly windowUnits: number;
      /** Length of one unit in ms (the body's `unit_ms`; 0 when it sent none). */
      readonly unitMs: number;
    }
  | { readonly state: 'offline'; readonly message: string }
  | { readonly state: 'error'; readonly code: string; readonly message: string };

/** Request/response operations (window -> app): their arguments and their answer. */
export interface BridgeOperations {
  /** Current updater status. */
  getStatus: { args: []; result: AppStatus };
  /** Starts a check (joins the run in flight); resolves when the run ends. */
  checkNow: { args: []; result: void };
  /** Top public machines of the current window, fetched by the app. */
  getActivity: { args: []; result: ActivityResult };
  /** Stops the pull in flight; the bytes verified so far are kept for the next run. */
  cancel: { args: []; result: ActionResult };
  /** Restores the previous installed set. */
  rollBack: { args: []; result: ActionResult };
  /** Re-hashes the installed files against the last accepted signed manifest. */
  verify: { args: []; result: ActionResult };
  /** Opens the log file in the system's viewer. */
  openLog: { args: []; result: ActionResult };
  /** Pauses (true) or resumes (false) automatic checks, and remembers the choice. */
  setPaused: { args: [paused: boolean]; result: void };
  /** Installs the version on offer (update policies "ask" and "notify"). */
  installNow: { args: []; result: ActionResult };
  /** Skips the version on offer (named, so a stale window cannot skip another one). */
  skipVersion: { args: [version: string]; result: ActionResult };
  /** The settings screen's current values (never the machine key itself). */
  getSettings: { args: []; result: SettingsView };
  /** Checks and saves the settings, then restarts the core on them. */
  saveSettings: { args: [input: SettingsInput]; result: SaveSettingsResult };
}

/** A part of the window the app may ask it to show (the tray's "Settings…"). */
export type WindowSection = 'settings';

/** Push events (app -> window) and their payloads. */
export interface BridgeEvents {
  status: AppStatus;
  /** Show this part of the window (sent just before the window is shown). */
  section: WindowSection;
}

export type OperationName = keyof BridgeOperations;
export type EventName = keyof BridgeEvents;
export type OperationArgs<K extends OperationName> = BridgeOperations[K]['args'];
export type OperationResult<K extends OperationName> = BridgeOperations[K]['result'];

export interface OperationSpec<K extends OperationName> {
  /** Electron IPC invoke channel; the web transport uses the operation's name in its path. */
  readonly channel: string;
  /**
   * Checks what crossed the boundary and returns the typed arguments, or null to refuse with
   * BAD_ARGUMENTS (Electron security checklist §17: validate what crosses, not only who sent).
   */
  readonly parseArgs: (raw: readonly unknown[]) => OperationArgs<K> | null;
}

/** Accepts exactly no arguments. */
export const noArgs = (raw: readonly unknown[]): [] | null => (raw.length === 0 ? [] : null);

/** Every operation of the contract; a missing or extra entry is a type error. */
export const OPERATIONS: { readonly [K in OperationName]: OperationSpec<K> } = {
  getStatus: { channel: 'updater:get-status', parseArgs: noArgs },
  checkNow: { channel: 'updater:check-now', parseArgs: noArgs },
  getActivity: { channel: 'activity:get', parseArgs: noArgs },
  cancel: { channel: 'updater:cancel', parseArgs: noArgs },
  rollBack: { channel: 'updater:roll-back', parseArgs: noArgs },
  verify: { channel: 'updater:verify', parseArgs: noArgs },
  openLog: { channel: 'app:open-log', parseArgs: noArgs },
  setPaused: {
    channel: 'updater:set-paused',
    parseArgs: (raw) => (raw.length === 1 && typeof raw[0] === 'boolean' ? [raw[0]] : null),
  },
  installNow: { channel: 'updater:install-now', parseArgs: noArgs },
  skipVersion: {
    channel: 'updater:skip-version',
    // A version string as the status told it: short, printable, no spaces.
    parseArgs: (raw) =>
      raw.length === 1 && typeof raw[0] === 'string' && /^[0-9A-Za-z.+-]{1,128}$/.test(raw[0])
        ? [raw[0]]
        : null,
  },
  getSettings: { channel: 'settings:get', parseArgs: noArgs },
  saveSettings: {
    channel: 'settings:save',
    parseArgs: (raw) => {
      const input = raw.length === 1 ? parseSettingsInput(raw[0]) : null;
      return input === null ? null : [input];
    },
  },
};

/** Every push event: its Electron channel (the web transport uses its name as the SSE event). */
export const EVENTS: { readonly [K in EventName]: { readonly channel: string } } = {
  status: { channel: 'updater:status' },
  section: { channel: 'window:section' },
};

/** The operation names, in the contract's order. */
export const OPERATION_NAMES = Object.keys(OPERATIONS) as OperationName[];
export const EVENT_NAMES = Object.keys(EVENTS) as EventName[];

/** Invoke channels by operation (kept for the main process and tests). */
export const IPC_CHANNELS: { readonly [K in OperationName]: string } = Object.fromEntries(
  OPERATION_NAMES.map((name) => [name, OPERATIONS[name].channel]),
) as { readonly [K in OperationName]: string };

/** Push channel of the status event. */
export const STATUS_EVENT_CHANNEL = EVENTS.status.channel;

/** `onStatus`, … : the subscription method of each push event. */
export type SubscribeMethod<K extends EventName> = `on${Capitalize<K>}`;

/**
 * What the window sees as `window.updater`: one method per operation, one `onX` per push
 * event (returning its unsubscribe function). Both bridges implement exactly this type.
 */
export type BridgeApi = {
  readonly [K in OperationName]: (...args: OperationArgs<K>) => Promise<OperationResult<K>>;
} & {
  readonly [K in EventName as SubscribeMethod<K>]: (
    listener: (payload: BridgeEvents[K]) => void,
  ) => () => void;
};

/** Subscribes to one push event of the app; returns the unsubscribe function. */
export type BridgeEventSources = {
  readonly [K in EventName]: (listener: (payload: BridgeEvents[K]) => void) => () => void;
};

/** What an app answers each operation with (src/app/bridge-handlers.ts builds one). */
export type BridgeHandlers = {
  readonly [K in OperationName]: (
    ...args: OperationArgs<K>
  ) => OperationResult<K> | Promise<OperationResult<K>>;
};

/** The subscription method name of an event (`status` -> `onStatus`). */
export function subscribeMethod<K extends EventName>(name: K): SubscribeMethod<K> {
  return `on${name.charAt(0).toUpperCase()}${name.slice(1)}` as SubscribeMethod<K>;
}

/** A transport: how a bridge reaches the app (Electron IPC, or HTTP + server-sent events). */
export interface BridgeTransport {
  invoke(name: OperationName, args: readonly unknown[]): Promise<unknown>;
  subscribe(name: EventName, listener: (payload: unknown) => void): () => void;
}

/**
 * Builds the window's API over a transport, generic over the contract: one method per
 * operation, one subscription per event. Frozen, like what contextBridge exposes.
 */
export function createBridgeApi(transport: BridgeTransport): BridgeApi {
  const api: Record<string, unknown> = {};
  for (const name of OPERATION_NAMES) {
    api[name] = (...args: unknown[]) => transport.invoke(name, args);
  }
  for (const name of EVENT_NAMES) {
    api[subscribeMethod(name)] = (listener: (payload: unknown) => void) =>
      transport.subscribe(name, listener);
  }
  return Object.freeze(api) as BridgeApi;
}
