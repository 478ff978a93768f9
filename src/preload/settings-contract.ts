/**
 * The settings screen's part of the bridge contract (src/preload/ipc-contract.ts, operations
 * getSettings and saveSettings): the shapes that cross and the shape check of what Save sends
 * (docs/DESKTOP.md "Settings").
 */

/** How the app updates itself (docs/RELEASING.md "Self-update targets"). */
export type SelfUpdateChoice = 'auto' | 'ask' | 'never';
export const SELF_UPDATE_CHOICES: readonly SelfUpdateChoice[] = ['auto', 'ask', 'never'];

/**
 * What a run does when it finds a new release (docs/DESKTOP.md "Update policy"): install it
 * (auto), stop after verification and planning and ask (ask), or only tell (notify).
 */
export type UpdatePolicy = 'auto' | 'ask' | 'notify';
export const UPDATE_POLICIES: readonly UpdatePolicy[] = ['auto', 'ask', 'notify'];

/** The settings screen's fields (docs/DESKTOP.md "Settings"). */
export type SettingsField =
  | 'registryUrl'
  | 'pinnedKeys'
  | 'machineKey'
  | 'trustedRoot'
  | 'checkIntervalMinutes'
  | 'startAtLogin';

/** What the settings screen shows. The machine key itself never crosses: only whether one is kept. */
export interface SettingsView {
  /** The registry's base URL; '' means the embedded demo registry. */
  readonly registryUrl: string;
  readonly pinnedKeys: readonly string[];
  readonly machineKeySet: boolean;
  /** Where a machine key entered here is kept, in plain words. */
  readonly machineKeyStorage: string;
  /**
   * The TUF root kept for the registry, in plain words ('' or absent: none kept). The file
   * itself never crosses back (docs/DESKTOP.md "Settings", trusted root).
   */
  readonly trustedRootKept?: string;
  readonly checkIntervalMinutes: number;
  readonly paused: boolean;
  readonly startAtLogin: boolean;
  /** False where the app cannot start itself at login (the web window). */
  readonly startAtLoginAvailable: boolean;
  /** Every check asks for a statement signed for its own nonce (docs/PROTOCOL.md §2.7.5). */
  readonly requireNonce: boolean;
  readonly updatePolicy: UpdatePolicy;
  readonly selfUpdate: SelfUpdateChoice;
  /** Closing the normal window (a desktop without a tray) keeps the app running, minimised. */
  readonly minimiseToBackground: boolean;
}

/** What the settings screen sends on Save. */
export interface SettingsInput {
  /** '' selects the demo registry. */
  readonly registryUrl: string;
  readonly pinnedKeys: readonly string[];
  /** A new machine key; '' keeps the one already kept. */
  readonly machineKey: string;
  /** A TUF root.json's text to start trust from; '' or absent keeps the one kept, if any. */
  readonly trustedRoot?: string;
  /** True: the kept root is forgotten (trust then starts from the pinned keys or a shipped root). */
  readonly forgetTrustedRoot?: boolean;
  readonly checkIntervalMinutes: number;
  readonly paused: boolean;
  readonly startAtLogin: boolean;
  readonly requireNonce: boolean;
  readonly updatePolicy: UpdatePolicy;
  readonly selfUpdate: SelfUpdateChoice;
  readonly minimiseToBackground: boolean;
}

/** A field's problem in plain words, shown next to it. */
export interface FieldProblem {
  readonly field: SettingsField;
  readonly words: string;
}

/** The answer to Save: applied (the core restarted on it), or refused with every problem. */
export type SaveSettingsResult =
  | { readonly ok: true; readonly words: string; readonly settings: SettingsView }
  | { readonly ok: false; readonly problems: readonly FieldProblem[] };

/** Bounds of what may cross in a SettingsInput (the settings' own limits are checked after). */
export const MAX_INPUT_TEXT = 4096;
export const MAX_INPUT_KEYS = 64;
/** Longest root.json text that may cross (a root with a dozen RSA keys fits). */
export const MAX_TRUSTED_ROOT_TEXT = 32 * 1024;
const INPUT_KEYS: readonly (keyof SettingsInput)[] = [
  'registryUrl',
  'pinnedKeys',
  'machineKey',
  'checkIntervalMinutes',
  'paused',
  'startAtLogin',
  'requireNonce',
  'updatePolicy',
  'selfUpdate',
  'minimiseToBackground',
];

/** The one of `choices` that `value` is, or null. */
function choice<T extends string>(choices: readonly T[], value: unknown): T | null {
  return choices.find((c) => c === value) ?? null;
}

const OPTIONAL_KEYS: readonly (keyof SettingsInput)[] = ['trustedRoot', 'forgetTrustedRoot'];

/** The optional fields' shape: absent, or of their type and bound. */
function optionalFieldsFit(record: Record<string, unknown>): boolean {
  const { trustedRoot, forgetTrustedRoot } = record;
  const rootFits =
    trustedRoot === undefined ||
    (typeof trustedRoot === 'string' && trustedRoot.length <= MAX_TRUSTED_ROOT_TEXT);
  return rootFits && (forgetTrustedRoot === undefined || typeof forgetTrustedRoot === 'boolean');
}

/**
 * Checks the shape of a SettingsInput that crossed the boundary: exactly its ten fields and
 * optionally `trustedRoot` and `forgetTrustedRoot`, of their types and bounded sizes. The
 * values' meaning (an address, a key) is judged in src/app/settings/settings-form.ts, which
 * answers in plain words.
 */
export function parseSettingsInput(raw: unknown): SettingsInput | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const record = raw as Record<string, unknown>;
  const keys = Object.keys(record);
  const optional = OPTIONAL_KEYS.filter((k) => keys.includes(k)).length;
  if (keys.length !== INPUT_KEYS.length + optional) return null;
  if (!INPUT_KEYS.every((k) => keys.includes(k))) return null;
  if (!optionalFieldsFit(record)) return null;
  const { trustedRoot, forgetTrustedRoot } = record;
  const text = (v: unknown): v is string => typeof v === 'string' && v.length <= MAX_INPUT_TEXT;
  const {
    registryUrl,
    pinnedKeys,
    machineKey,
    checkIntervalMinutes,
    paused,
    startAtLogin,
    requireNonce,
    minimiseToBackground,
  } = record;
  if (!text(registryUrl) || !text(machineKey)) return null;
  if (!Array.isArray(pinnedKeys) || pinnedKeys.length > MAX_INPUT_KEYS) return null;
  if (!pinnedKeys.every(text)) return null;
  if (typeof checkIntervalMinutes !== 'number' || !Number.isFinite(checkIntervalMinutes)) {
    return null;
  }
  if (typeof paused !== 'boolean' || typeof startAtLogin !== 'boolean') return null;
  if (typeof requireNonce !== 'boolean' || typeof minimiseToBackground !== 'boolean') return null;
  const updatePolicy = choice(UPDATE_POLICIES, record['updatePolicy']);
  const selfUpdate = choice(SELF_UPDATE_CHOICES, record['selfUpdate']);
  if (updatePolicy === null || selfUpdate === null) return null;
  return {
    registryUrl,
    pinnedKeys: [...pinnedKeys],
    machineKey,
    checkIntervalMinutes,
    paused,
    startAtLogin,
    requireNonce,
    updatePolicy,
    selfUpdate,
    minimiseToBackground,
    ...(typeof trustedRoot === 'string' ? { trustedRoot } : {}),
    ...(typeof forgetTrustedRoot === 'boolean' ? { forgetTrustedRoot } : {}),
  };
}
