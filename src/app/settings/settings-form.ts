/**
 * Judges what the settings screen sent (docs/DESKTOP.md "Settings"): every problem in plain
 * words, by field, so the screen shows each next to its field; or the values to store. Pure.
 * The registry's address and keys follow the one rule of registry-fields.ts (also used by the
 * shipped registry.json and the registry choice at start), so the three never disagree.
 */
import type {
  FieldProblem,
  SelfUpdateChoice,
  SettingsInput,
  UpdatePolicy,
} from '#preload/ipc-contract.js';
import {
  normalizePinnedKey,
  pinnedKeysProblem,
  registryUrlProblem,
} from '../registry/registry-fields.js';
import { MIN_CHECK_INTERVAL_MS } from './settings.js';
import { judgeTrustedRoot } from './trusted-root.js';

/** The interval's bounds in the screen's unit (the settings schema allows the same). */
export const MIN_INTERVAL_MINUTES = MIN_CHECK_INTERVAL_MS / 60_000;
export const MAX_INTERVAL_MINUTES = 7 * 24 * 60;

/** Longest machine key accepted (the registry mints 43-character keys). */
export const MAX_MACHINE_KEY_LENGTH = 512;

/** What to store once the input is accepted. */
export interface AcceptedSettings {
  /** '' selects the demo registry. */
  readonly baseUrl: string;
  readonly pinnedKeys: readonly string[];
  /** A new key to keep, or null to keep the one already kept. */
  readonly machineKey: string | null;
  /** A new trusted root to keep (judged: trusted-root.ts); absent keeps the kept one. */
  readonly trustedRoot?: Uint8Array;
  /** The kept root is to be forgotten. */
  readonly forgetTrustedRoot: boolean;
  readonly checkIntervalMs: number;
  readonly paused: boolean;
  readonly startAtLogin: boolean;
  readonly requireNonce: boolean;
  readonly updatePolicy: UpdatePolicy;
  readonly selfUpdate: SelfUpdateChoice;
  readonly minimiseToBackground: boolean;
}

export type SettingsJudgement =
  | { readonly ok: true; readonly accepted: AcceptedSettings }
  | { readonly ok: false; readonly problems: readonly FieldProblem[] };

function machineKeyProblem(key: string, keptAlready: boolean): string | null {
  if (key === '') {
    return keptAlready ? null : 'Enter the machine key your registry gave this computer.';
  }
  if (key.length > MAX_MACHINE_KEY_LENGTH) return 'This machine key is too long.';
  // It travels in an HTTP header: no spaces or control characters (RFC 9110 §5.5).
  if (!/^[\x21-\x7e]+$/.test(key)) {
    return 'A machine key has no spaces and only letters, digits and punctuation.';
  }
  return null;
}

function intervalProblem(minutes: number): string | null {
  if (!Number.isInteger(minutes)) return 'Enter a whole number of minutes.';
  if (minutes < MIN_INTERVAL_MINUTES) {
    return `Check at most once a minute: enter ${MIN_INTERVAL_MINUTES} or more.`;
  }
  if (minutes > MAX_INTERVAL_MINUTES) {
    return `Check at least once a week: enter ${MAX_INTERVAL_MINUTES} or fewer.`;
  }
  return null;
}

export interface JudgeContext {
  readonly machineKeyKept: boolean;
  readonly startAtLoginAvailable: boolean;
  /** A trusted root is kept for the registry (then no pinned key is needed). */
  readonly trustedRootKept?: boolean;
  /** The registry address stored now ('' the demo): the one a kept root was given for. */
  readonly storedBaseUrl?: string;
}

/** The trusted root field: null when left empty, else the judged root or its problem. */
function rootField(text: string | undefined, demo: boolean) {
  if (text === undefined || text.trim() === '') return null;
  if (demo) {
    return {
      ok: false as const,
      words: 'A trusted root belongs to a registry: enter the registry address too.',
    };
  }
  return judgeTrustedRoot(text);
}

/**
 * The kept root's problem: it belongs to the stored address, so another address needs that
 * registry's own root or the kept one forgotten (trust never carries over to another registry
 * unasked); and a new root and "forget" together contradict each other.
 */
function keptRootProblem(
  input: SettingsInput,
  baseUrl: string,
  rootGiven: boolean,
  context: JudgeContext,
): string | null {
  const forget = input.forgetTrustedRoot === true;
  if (forget && rootGiven) return 'Give a new root or forget the kept one, not both.';
  if (context.trustedRootKept !== true || forget || rootGiven) return null;
  const stored = context.storedBaseUrl;
  if (stored === undefined || stored === baseUrl) return null;
  return baseUrl === ''
    ? `The kept root belongs to ${stored}: tick "Forget the kept root" to use the demo registry.`
    : `The kept root belongs to ${stored}: give this registry's root.json, or tick "Forget the kept root".`;
}

/**
 * Judges the input. `machineKeyKept`: a key is kept already, so an empty field keeps it.
 * `startAtLoginAvailable`: false where the app cannot start itself (the web window).
 */
export function judgeSettings(input: SettingsInput, context: JudgeContext): SettingsJudgement {
  const problems: FieldProblem[] = [];
  const add = (field: FieldProblem['field'], words: string | null): void => {
    if (words !== null) problems.push({ field, words });
  };
  const baseUrl = input.registryUrl.trim();
  // Blank lines between keys are forgiven; the keys themselves are checked one by one.
  const keys = input.pinnedKeys.map((key) => key.trim()).filter((key) => key !== '');
  const machineKey = input.machineKey.trim();
  // Empty address: the embedded demo, which pins its own key and mints its own machine key.
  const demo = baseUrl === '';
  const root = rootField(input.trustedRoot, demo);
  if (root !== null && !root.ok) add('trustedRoot', root.words);
  else add('trustedRoot', keptRootProblem(input, demo ? '' : baseUrl, root !== null, context));
  const forget = input.forgetTrustedRoot === true;
  // A TUF root is an anchor of its own: pinned keys are then optional (open-updater.ts).
  const anchored = root?.ok === true || (context.trustedRootKept === true && !forget);
  if (!demo) {
    add('registryUrl', registryUrlProblem(baseUrl));
    add('pinnedKeys', anchored && keys.length === 0 ? null : pinnedKeysProblem(keys));
    add('machineKey', machineKeyProblem(machineKey, context.machineKeyKept));
  }
  add('checkIntervalMinutes', intervalProblem(input.checkIntervalMinutes));
  if (input.startAtLogin && !context.startAtLoginAvailable) {
    add('startAtLogin', 'This window cannot start the app at login; the desktop app can.');
  }
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    accepted: {
      baseUrl: demo ? '' : baseUrl,
      pinnedKeys: demo ? [] : keys.map(normalizePinnedKey),
      machineKey: demo || machineKey === '' ? null : machineKey,
      ...(root?.ok === true ? { trustedRoot: root.bytes } : {}),
      forgetTrustedRoot: forget && context.trustedRootKept === true,
      checkIntervalMs: input.checkIntervalMinutes * 60_000,
      paused: input.paused,
      startAtLogin: input.startAtLogin,
      requireNonce: input.requireNonce,
      updatePolicy: input.updatePolicy,
      selfUpdate: input.selfUpdate,
      minimiseToBackground: input.minimiseToBackground,
    },
  };
}
