/**
 * The app's settings, kept by electron-store with a JSON schema (so a hand-edited file that
 * breaks the schema is refused at open, not half-used). Empty baseUrl means the embedded demo
 * registry (src/app/registry/first-run.ts).
 */
import type { Schema } from 'electron-store';
import { UpdateError } from '#core/errors.js';
import {
  SELF_UPDATE_CHOICES,
  UPDATE_POLICIES,
  type SelfUpdateChoice,
  type UpdatePolicy,
} from '#preload/ipc-contract.js';

export interface AppSettings {
  /** Registry base URL; '' selects the embedded demo registry. */
  readonly baseUrl: string;
  /** Pinned node_pubkeys (64 lowercase hex); empty falls back to resources/pinned-key.txt. */
  readonly pinnedKeys: readonly string[];
  /** Interval between automatic checks (the scheduler adds jitter and backoff). */
  readonly checkIntervalMs: number;
  readonly paused: boolean;
  /** Start the app when the user logs in (off by default; src/main/login-item.ts). */
  readonly startAtLogin: boolean;
  /**
   * Send a fresh nonce with every manifest request and accept only a freshness statement
   * signed for it (docs/PROTOCOL.md §2.7.5; the CLI's `--require-nonce`). Off by default.
   */
  readonly requireNonce: boolean;
  /** safeStorage ciphertext of the machine key, base64 (src/app/settings/secret-store.ts). */
  readonly machineKeyCiphertext: string;
  /** What a run does with a new release: install, ask first, or only tell (default install). */
  readonly updatePolicy: UpdatePolicy;
  /** How the app updates itself (default: ask first, since it restarts). */
  readonly selfUpdate: SelfUpdateChoice;
  /** Without a tray, closing the window minimises it instead of quitting (default on). */
  readonly minimiseToBackground: boolean;
  /**
   * The version the user skipped or left by rolling back ('' none): not installed or offered
   * again until a newer one appears (docs/DESKTOP.md "Update policy"). Kept here so it
   * survives a restart; electron-store writes the file atomically (temporary file, rename).
   */
  readonly skippedVersion: string;
}

/** Shortest interval a user may set: checking more often only loads the registry. */
export const MIN_CHECK_INTERVAL_MS = 60_000;

export const DEFAULT_SETTINGS: AppSettings = {
  baseUrl: '',
  pinnedKeys: [],
  checkIntervalMs: 60 * 60_000,
  paused: false,
  startAtLogin: false,
  requireNonce: false,
  machineKeyCiphertext: '',
  updatePolicy: 'auto',
  selfUpdate: 'ask',
  minimiseToBackground: true,
  skippedVersion: '',
};

/** electron-store schema (JSON Schema draft 2020-12 via ajv). */
export const SETTINGS_SCHEMA: Schema<AppSettings> = {
  baseUrl: { type: 'string', maxLength: 2048, pattern: '^(|https?://.+)$' },
  pinnedKeys: {
    type: 'array',
    maxItems: 16,
    items: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  },
  checkIntervalMs: { type: 'integer', minimum: MIN_CHECK_INTERVAL_MS, maximum: 7 * 24 * 3_600_000 },
  paused: { type: 'boolean' },
  startAtLogin: { type: 'boolean' },
  requireNonce: { type: 'boolean' },
  machineKeyCiphertext: { type: 'string', maxLength: 4096 },
  updatePolicy: { type: 'string', enum: [...UPDATE_POLICIES] },
  selfUpdate: { type: 'string', enum: [...SELF_UPDATE_CHOICES] },
  minimiseToBackground: { type: 'boolean' },
  skippedVersion: { type: 'string', maxLength: 128 },
};

/** The small slice of electron-store the app uses (tests pass a Map-backed fake). */
export interface SettingsStore {
  get<K extends keyof AppSettings>(key: K): AppSettings[K];
  set<K extends keyof AppSettings>(key: K, value: AppSettings[K]): void;
}

/**
 * Opens the settings file in the app's userData directory. A file that is not JSON or breaks
 * the schema is refused with CONFIG_INVALID (the cause says why) and left untouched: it is the
 * user's to fix, never cleared or half-used.
 */
export async function openSettingsStore(): Promise<SettingsStore> {
  // Loaded lazily: electron-store reads `app` from electron at import time.
  const { default: Store } = await import('electron-store');
  let store: InstanceType<typeof Store<AppSettings>>;
  try {
    store = new Store<AppSettings>({
      name: 'settings',
      schema: SETTINGS_SCHEMA,
      defaults: DEFAULT_SETTINGS,
      clearInvalidConfig: false,
    });
  } catch (cause) {
    throw new UpdateError(
      'CONFIG_INVALID',
      'The settings file (settings.json) is invalid; fix or remove it.',
      { cause },
    );
  }
  return {
    get: (key) => store.get(key),
    set: (key, value) => store.set(key, value),
  };
}

/**
 * Settings held in memory only, for a session whose settings file was refused: nothing is
 * written, so the user's file stays exactly as it was.
 */
export function memorySettings(initial: AppSettings = DEFAULT_SETTINGS): SettingsStore {
  const values: { -readonly [K in keyof AppSettings]: AppSettings[K] } = { ...initial };
  return {
    get: (key) => values[key],
    set: (key, value) => {
      values[key] = value;
    },
  };
}
