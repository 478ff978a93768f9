/**
 * The AppStatus the window and the tray show: its first value, the core's events and the
 * core's persisted status folded in (the transitions live in status-machine.ts). Pure: the
 * controller owns the current value and the clock.
 */
import type { UpdaterStatus } from '#core/updater-api.js';
import type { AppStatus } from '#preload/ipc-contract.js';
import { describeError } from './refusal-words.js';
import { headlineOf, reduceStatus, type StatusEvent } from './status-machine.js';
import { headlineFor } from './status-words.js';

export { isCoreEvent, type AppEvent, type StatusEvent } from './status-machine.js';

/** The status before anything is known. */
export function initialStatus(registryLabel: string): AppStatus {
  return {
    registryLabel,
    installedVersion: null,
    phase: 'idle',
    state: 'idle',
    targetVersion: null,
    headline: headlineFor('idle', {
      installedVersion: null,
      targetVersion: null,
      skippedVersion: null,
    }),
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
}

/** Applies one event of the core or of the app (docs/DESKTOP.md "Updates"). */
export function applyEvent(status: AppStatus, event: StatusEvent): AppStatus {
  return reduceStatus(status, event);
}

/**
 * Merges the core's persisted status (read at start and after each run). The facts are the
 * core's; the state is the machine's, except at start, when a failure the core recorded in an
 * earlier session is the only news there is. A cancel is never shown as a failure.
 */
export function applyCoreStatus(status: AppStatus, core: UpdaterStatus): AppStatus {
  const facts: AppStatus = {
    ...status,
    installedVersion: core.installedVersion,
    lastCheckAtMs: core.lastCheckAtMs ?? status.lastCheckAtMs,
    canRollBack: core.canRollBack,
  };
  const error = core.lastError;
  if (status.state === 'idle' && error !== null && error.code !== 'ABORTED') {
    return reduceStatus(facts, { type: 'failed', error: describeError(error.code, error.message) });
  }
  return { ...facts, headline: headlineOf(facts) };
}

/**
 * A one-line summary for the tray menu and tooltip, short by design: the tray has no room for
 * the card's headline (src/main/tray-menu.ts).
 */
export function statusLine(status: AppStatus): string {
  if (status.phase === 'checking') return 'Checking for updates…';
  if (status.phase === 'downloading' && status.progress !== null) {
    const pct = percent(status.progress.bytes, status.progress.total);
    return `Downloading update… ${pct}%`;
  }
  if (status.phase === 'applying') return 'Installing update…';
  if (status.lastError !== null) return `Update failed (${status.lastError.code})`;
  if (status.paused) return 'Updates paused';
  if (status.installedVersion === null) return 'Not installed yet';
  return `Up to date: ${status.installedVersion}`;
}

/** Whole percent, 0..100, with an empty total counting as done. */
export function percent(bytes: number, total: number): number {
  if (total <= 0) return 100;
  return Math.min(100, Math.max(0, Math.floor((bytes * 100) / total)));
}
