/**
 * Renders the updater status card. Text only through textContent (never innerHTML): names and
 * messages that came from the network cannot inject markup.
 */
import type { AppStatus } from '../preload/ipc-contract.js';
import { setText } from './dom-text.js';
import { errorWords } from './error-words.js';
import { formatBytes, relativeTime } from './format.js';

export interface StatusElements {
  readonly registry: HTMLElement;
  readonly installedVersion: HTMLElement;
  readonly lastCheck: HTMLElement;
  readonly nextCheck: HTMLElement;
  readonly statusLine: HTMLElement;
  readonly progressRow: HTMLElement;
  readonly progress: HTMLProgressElement;
  readonly progressText: HTMLElement;
  readonly error: HTMLElement;
  readonly errorWords: HTMLElement;
  readonly errorCode: HTMLElement;
  readonly checkNow: HTMLButtonElement;
}

/** Looks the card's elements up by id; a missing one is a build error, reported loudly. */
export function findStatusElements(doc: Document): StatusElements {
  const get = <T extends HTMLElement>(id: string): T => {
    const element = doc.getElementById(id);
    if (element === null) throw new Error(`missing #${id}`);
    return element as T;
  };
  return {
    registry: get('registry'),
    installedVersion: get('installed-version'),
    lastCheck: get('last-check'),
    nextCheck: get('next-check'),
    statusLine: get('status-line'),
    progressRow: get('progress-row'),
    progress: get<HTMLProgressElement>('progress'),
    progressText: get('progress-text'),
    error: get('error'),
    errorWords: get('error-words'),
    errorCode: get('error-code'),
    checkNow: get<HTMLButtonElement>('check-now'),
  };
}

function phaseWords(status: AppStatus): string {
  switch (status.phase) {
    case 'checking':
      return 'Checking for updates…';
    case 'downloading':
      return 'Downloading the update…';
    case 'applying':
      return 'Installing the update…';
    case 'idle':
      if (status.lastError !== null) return 'The last check failed.';
      if (status.paused) return 'Automatic updates are paused.';
      return status.installedVersion === null ? 'Nothing installed yet.' : 'Up to date.';
  }
}

/** Writes the status into the card. */
export function renderStatus(el: StatusElements, status: AppStatus, nowMs: number): void {
  el.registry.textContent = status.registryLabel;
  el.installedVersion.textContent = status.installedVersion ?? 'none yet';
  el.lastCheck.textContent = relativeTime(status.lastCheckAtMs, nowMs, 'never');
  el.nextCheck.textContent = status.paused
    ? 'paused'
    : relativeTime(status.nextCheckAtMs, nowMs, 'not scheduled');
  // Only the phase sentence is live: progress ticks would flood a screen reader.
  setText(el.statusLine, phaseWords(status));

  const progress = status.progress;
  el.progressRow.hidden = progress === null;
  if (progress !== null) {
    el.progress.max = Math.max(1, progress.total);
    el.progress.value = Math.min(progress.bytes, progress.total);
    el.progressText.textContent = `${formatBytes(progress.bytes)} of ${formatBytes(progress.total)}`;
  }

  const error = status.lastError;
  el.error.hidden = error === null;
  if (error !== null) {
    // Unchanged text is not rewritten: role="alert" would announce it again on every push.
    setText(el.errorWords, errorWords(error.code, error.message));
    setText(el.errorCode, error.code);
  }
  const busy = status.phase !== 'idle';
  el.checkNow.disabled = busy;
  el.checkNow.setAttribute('aria-busy', String(busy));
}

/** Code shown when the window's bridge to the main process fails (not an updater code). */
export const BRIDGE_ERROR = {
  code: 'BRIDGE',
  message: 'The app’s background process did not answer.',
} as const;

/** The status to show when a bridge call failed: the last one known, idle, with BRIDGE. */
export function withBridgeError(status: AppStatus | null): AppStatus {
  const base: AppStatus = status ?? {
    registryLabel: '',
    installedVersion: null,
    phase: 'idle',
    progress: null,
    lastCheckAtMs: null,
    nextCheckAtMs: null,
    paused: false,
    lastError: null,
  };
  return { ...base, phase: 'idle', progress: null, lastError: { ...BRIDGE_ERROR } };
}
