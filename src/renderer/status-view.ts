/**
 * Renders the updater status card (docs/DESKTOP.md "Updates") from the one current state the
 * app computed (src/app/status/status-machine.ts): the headline, the progress only while a
 * download runs, the error box only in a failure, the result line only until the next state.
 * Text only through textContent (never innerHTML): names and messages that came from the
 * network cannot inject markup.
 */
import type { AppStatus, ErrorKind, ErrorView, ProgressView } from '#preload/ipc-contract.js';
import { setText } from './dom-text.js';
import { clockTime, countdown, formatBytes, formatDuration, relativeTime } from './format.js';

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
  readonly errorKept: HTMLElement;
  readonly errorAdvice: HTMLElement;
  readonly errorCode: HTMLElement;
  readonly retry: HTMLButtonElement;
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
    errorKept: get('error-kept'),
    errorAdvice: get('error-advice'),
    errorCode: get('error-code'),
    retry: get<HTMLButtonElement>('retry'),
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
  cancelled: 'Update stopped',
};

/**
 * "34 % · 1.2 MiB of 3.4 MiB · 512.0 KiB/s · about 5 s left"; a chunk delta says what it
 * saves: "downloading 1.2 MiB of changes (saves 510.0 MiB)".
 */
export function progressWords(progress: ProgressView): string {
  const pct = progress.total <= 0 ? 100 : Math.floor((progress.bytes * 100) / progress.total);
  const of = `${formatBytes(progress.bytes)} of ${formatBytes(progress.total)}`;
  const parts = [`${Math.min(100, pct)} %`, of];
  const saved = progress.savedBytes ?? 0;
  if (progress.changesOnly === true && saved > 0) {
    parts[1] = `${of} of changes (saves ${formatBytes(saved)})`;
  }
  if (progress.bytesPerSecond !== null) parts.push(`${formatBytes(progress.bytesPerSecond)}/s`);
  if (progress.remainingMs !== null) {
    parts.push(`about ${formatDuration(progress.remainingMs)} left`);
  }
  return parts.join(' · ');
}

/** The progress row's title: "Downloading 1.2 MiB of changes for 2.0.0" or the plain form. */
function progressTitle(progress: ProgressView): string {
  const target = progress.targetVersion === null ? '' : ` ${progress.targetVersion}`;
  const saved = progress.savedBytes ?? 0;
  if (progress.changesOnly === true && saved > 0) {
    return `Downloading ${formatBytes(progress.total)} of changes for${target} (saves ${formatBytes(saved)})`;
  }
  return `Downloading${target}`;
}

function renderError(el: StatusElements, status: AppStatus): void {
  const error: ErrorView | null = status.state === 'failed' ? status.lastError : null;
  el.error.hidden = error === null;
  if (error === null) {
    el.error.removeAttribute('role');
    return;
  }
  el.error.dataset['kind'] = error.kind;
  // A refusal interrupts (alert); network weather is only news (status).
  const role = error.kind === 'network' || error.kind === 'cancelled' ? 'status' : 'alert';
  if (el.error.getAttribute('role') !== role) el.error.setAttribute('role', role);
  // Unchanged text is not rewritten: live regions would announce it again on every push.
  setText(el.errorTitle, ERROR_TITLES[error.kind]);
  setText(el.errorWords, error.words);
  setText(el.errorAdvice, error.advice);
  setText(el.errorCode, error.code);
  const kept = status.kept;
  el.errorKept.hidden = kept === null;
  if (kept !== null) {
    const what = kept.targetVersion === null ? 'the update' : kept.targetVersion;
    setText(
      el.errorKept,
      `${formatBytes(kept.keptBytes)} of ${formatBytes(kept.total)} of ${what} are kept; the download resumes from there.`,
    );
  }
  // A refusal of signed data is not retried by hand: retrying will not help.
  el.retry.hidden = error.kind === 'security' || error.code === 'BRIDGE';
}

function renderProgress(el: StatusElements, status: AppStatus): void {
  const progress = status.progress;
  // Cancel hides with its row when the download ends: focus moves on, never to <body>.
  if (progress === null && el.progressRow.contains(el.progressRow.ownerDocument.activeElement)) {
    el.checkNow.focus();
  }
  el.progressRow.hidden = progress === null;
  if (progress !== null) {
    setText(el.progressTitle, progressTitle(progress));
    el.progress.max = Math.max(1, progress.total);
    el.progress.value = Math.min(progress.bytes, progress.total);
    setText(el.progressText, progressWords(progress));
  }
}

function renderFacts(el: StatusElements, status: AppStatus, nowMs: number, locale: string): void {
  setText(el.registry, status.registryLabel);
  setText(el.installedVersion, status.installedVersion ?? 'none yet');
  setText(el.lastCheck, relativeTime(status.lastCheckAtMs, nowMs, 'never'));
  const busy = status.phase !== 'idle';
  setText(
    el.nextCheck,
    status.paused
      ? 'paused'
      : busy && status.nextCheckAtMs !== null && status.nextCheckAtMs <= nowMs
        ? 'now'
        : countdown(status.nextCheckAtMs, nowMs, 'not scheduled'),
  );
  const update = status.lastUpdate;
  el.lastUpdate.hidden = update === null;
  if (update !== null) {
    const at = clockTime(new Date(update.atMs).toISOString(), locale);
    const from = update.fromVersion ?? 'nothing';
    const words =
      update.kind === 'rollback'
        ? `Rolled back from ${from} to ${update.toVersion} at ${at}.`
        : update.fromVersion === null
          ? `Installed ${update.toVersion} at ${at}.`
          : `Updated from ${from} to ${update.toVersion} at ${at}.`;
    setText(el.lastUpdate, words);
  }
}

/** Busy controls keep focus (aria-disabled, not disabled): focus never falls to <body>. */
export function setBusy(button: HTMLButtonElement, unavailable: boolean): void {
  const value = String(unavailable);
  if (button.getAttribute('aria-disabled') !== value) button.setAttribute('aria-disabled', value);
}

/** True when a click on `button` must do nothing (it says so with aria-disabled). */
export function isUnavailable(button: HTMLButtonElement): boolean {
  return button.getAttribute('aria-disabled') === 'true';
}

function renderButtons(el: StatusElements, status: AppStatus): void {
  const busy = status.phase !== 'idle';
  setBusy(el.cancel, status.state !== 'downloading');
  setBusy(el.checkNow, busy);
  el.checkNow.setAttribute('aria-busy', String(busy));
  setText(el.pause, status.paused ? 'Resume' : 'Pause');
  el.pause.setAttribute('aria-pressed', String(status.paused));
  setBusy(el.rollBack, busy || !status.canRollBack);
  setBusy(el.verify, busy || status.installedVersion === null);
  setBusy(el.retry, busy);
}

/** Writes the status into the card. */
export function renderStatus(
  el: StatusElements,
  status: AppStatus,
  nowMs: number,
  locale = 'en',
): void {
  renderFacts(el, status, nowMs, locale);
  // Only the headline is live, and rewritten only when it changes: one announcement per state.
  setText(el.statusLine, status.headline);
  renderProgress(el, status);
  renderError(el, status);
  renderButtons(el, status);
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
    kept: null,
    progress: null,
    lastError: BRIDGE_ERROR,
  };
}
