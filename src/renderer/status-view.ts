/**
 * Renders the updater status card (docs/DESKTOP.md "Updates"). Text only through textContent
 * (never innerHTML): names and messages that came from the network cannot inject markup.
 */
import type { AppStatus, ErrorKind, ErrorView, ProgressView } from '#preload/ipc-contract.js';
import { setText } from './dom-text.js';
import { clockTime, formatBytes, formatDuration, relativeTime } from './format.js';

export interface StatusElements {
  readonly registry: HTMLElement;
  readonly installedVersion: HTMLElement;
  readonly lastCheck: HTMLElement;
  readonly nextCheck: HTMLElement;
  readonly statusLine: HTMLElement;
  readonly lastUpdate: HTMLElement;
  readonly progressRow: HTMLElement;
  readonly progressTitle: HTMLElement;
  readonly progress: HTMLProgressElement;
  readonly progressText: HTMLElement;
  readonly cancel: HTMLButtonElement;
  readonly error: HTMLElement;
  readonly errorTitle: HTMLElement;
  readonly errorWords: HTMLElement;
  readonly errorAdvice: HTMLElement;
  readonly errorCode: HTMLElement;
  readonly checkNow: HTMLButtonElement;
  readonly pause: HTMLButtonElement;
  readonly rollBack: HTMLButtonElement;
  readonly verify: HTMLButtonElement;
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
    lastUpdate: get('last-update'),
    progressRow: get('progress-row'),
    progressTitle: get('progress-title'),
    progress: get<HTMLProgressElement>('progress'),
    progressText: get('progress-text'),
    cancel: get<HTMLButtonElement>('cancel'),
    error: get('error'),
    errorTitle: get('error-title'),
    errorWords: get('error-words'),
    errorAdvice: get('error-advice'),
    errorCode: get('error-code'),
    checkNow: get<HTMLButtonElement>('check-now'),
    pause: get<HTMLButtonElement>('pause'),
    rollBack: get<HTMLButtonElement>('roll-back'),
    verify: get<HTMLButtonElement>('verify'),
  };
}

/** The heading of the error box: a refusal for safety never reads like a network blip. */
const ERROR_TITLES: Readonly<Record<ErrorKind, string>> = {
  security: 'Update refused for your safety',
  network: 'Connection trouble',
  access: 'The registry refused this machine',
  settings: 'Settings need attention',
  local: 'Problem on this computer',
  cancelled: 'Update cancelled',
};

function phaseWords(status: AppStatus): string {
  switch (status.phase) {
    case 'checking':
      return 'Checking for updates…';
    case 'downloading': {
      const target = status.progress?.targetVersion;
      return target === null || target === undefined
        ? 'Downloading the update…'
        : `Downloading version ${target}…`;
    }
    case 'applying':
      return 'Installing the update…';
    case 'idle': {
      const error = status.lastError;
      if (error !== null) {
        if (error.kind === 'security') return 'The last update was refused for your safety.';
        if (error.kind === 'network') return 'The last check could not reach the registry.';
        if (error.kind === 'cancelled') return 'The update was cancelled.';
        return 'The last check failed.';
      }
      if (status.paused) return 'Automatic updates are paused.';
      return status.installedVersion === null ? 'Nothing installed yet.' : 'Up to date.';
    }
  }
}

/** "34 % · 1.2 MiB of 3.4 MiB · 512.0 KiB/s · about 5 s left" */
export function progressWords(progress: ProgressView): string {
  const pct = progress.total <= 0 ? 100 : Math.floor((progress.bytes * 100) / progress.total);
  const parts = [
    `${Math.min(100, pct)} %`,
    `${formatBytes(progress.bytes)} of ${formatBytes(progress.total)}`,
  ];
  if (progress.bytesPerSecond !== null) parts.push(`${formatBytes(progress.bytesPerSecond)}/s`);
  if (progress.remainingMs !== null)
    parts.push(`about ${formatDuration(progress.remainingMs)} left`);
  return parts.join(' · ');
}

function renderError(el: StatusElements, error: ErrorView | null): void {
  el.error.hidden = error === null;
  if (error === null) {
    el.error.removeAttribute('role');
    return;
  }
  el.error.dataset['kind'] = error.kind;
  // A refusal interrupts (alert); network weather and a cancel are only news (status).
  const role = error.kind === 'network' || error.kind === 'cancelled' ? 'status' : 'alert';
  if (el.error.getAttribute('role') !== role) el.error.setAttribute('role', role);
  // Unchanged text is not rewritten: live regions would announce it again on every push.
  setText(el.errorTitle, ERROR_TITLES[error.kind]);
  setText(el.errorWords, error.words);
  setText(el.errorAdvice, error.advice);
  setText(el.errorCode, error.code);
}

/** Writes the status into the card. */
export function renderStatus(
  el: StatusElements,
  status: AppStatus,
  nowMs: number,
  locale = 'en',
): void {
  setText(el.registry, status.registryLabel);
  setText(el.installedVersion, status.installedVersion ?? 'none yet');
  setText(el.lastCheck, relativeTime(status.lastCheckAtMs, nowMs, 'never'));
  setText(
    el.nextCheck,
    status.paused ? 'paused' : relativeTime(status.nextCheckAtMs, nowMs, 'not scheduled'),
  );
  // Only the phase sentence is live: progress ticks would flood a screen reader.
  setText(el.statusLine, phaseWords(status));

  const update = status.lastUpdate;
  el.lastUpdate.hidden = update === null;
  if (update !== null) {
    const at = clockTime(new Date(update.atMs).toISOString(), locale);
    const from = update.fromVersion === null ? 'nothing' : update.fromVersion;
    setText(el.lastUpdate, `Updated from ${from} to ${update.toVersion} at ${at}.`);
  }

  const progress = status.progress;
  el.progressRow.hidden = progress === null;
  if (progress !== null) {
    setText(
      el.progressTitle,
      progress.targetVersion === null ? 'Downloading' : `Downloading ${progress.targetVersion}`,
    );
    el.progress.max = Math.max(1, progress.total);
    el.progress.value = Math.min(progress.bytes, progress.total);
    setText(el.progressText, progressWords(progress));
  }
  el.cancel.disabled = status.phase !== 'downloading';

  renderError(el, status.lastError);
  const busy = status.phase !== 'idle';
  el.checkNow.disabled = busy;
  el.checkNow.setAttribute('aria-busy', String(busy));
  setText(el.pause, status.paused ? 'Resume' : 'Pause');
  el.pause.setAttribute('aria-pressed', String(status.paused));
  el.rollBack.disabled = busy || !status.canRollBack;
  el.verify.disabled = busy || status.installedVersion === null;
}

/** Code shown when the window's bridge to the main process fails (not an updater code). */
export const BRIDGE_ERROR: ErrorView = {
  code: 'BRIDGE',
  message: 'The app’s background process did not answer.',
  words: 'The app’s background process did not answer.',
  advice: 'Try again, or restart the app.',
  kind: 'local',
};

/** The status to show when a bridge call failed: the last one known, failed, with BRIDGE. */
export function withBridgeError(status: AppStatus | null): AppStatus {
  const base: AppStatus = status ?? {
    registryLabel: '',
    installedVersion: null,
    phase: 'idle',
    state: 'idle',
    targetVersion: null,
    headline: '',
    notice: null,
    kept: null,
    offer: null,
    skippedVersion: null,
    progress: null,
    lastCheckAtMs: null,
    nextCheckAtMs: null,
    paused: false,
    lastError: null,
    lastUpdate: null,
    canRollBack: false,
  };
  return {
    ...base,
    phase: 'idle',
    state: 'failed',
    headline: 'The window lost touch with the updater.',
    notice: null,
    progress: null,
    lastError: BRIDGE_ERROR,
  };
}
