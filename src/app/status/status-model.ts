/**
 * Folds the core's UpdateEvents into the AppStatus the window and the tray show. Pure: the
 * controller owns the current value and the clock.
 */
import type { UpdateEvent } from '#core/events.js';
import type { UpdaterStatus } from '#core/updater-api.js';
import type { AppStatus } from '#preload/ipc-contract.js';
import { describeError } from './refusal-words.js';

/** The status before anything is known. */
export function initialStatus(registryLabel: string): AppStatus {
  return {
    registryLabel,
    installedVersion: null,
    phase: 'idle',
    progress: null,
    lastCheckAtMs: null,
    nextCheckAtMs: null,
    paused: false,
    lastError: null,
    lastUpdate: null,
    canRollBack: false,
  };
}

/** Applies one core event. */
export function applyEvent(status: AppStatus, event: UpdateEvent): AppStatus {
  switch (event.type) {
    case 'checking':
      return { ...status, phase: 'checking', progress: null, lastCheckAtMs: event.atMs };
    case 'up-to-date':
      return {
        ...status,
        phase: 'idle',
        progress: null,
        installedVersion: event.version ?? status.installedVersion,
        lastError: null,
      };
    case 'update-available':
      return {
        ...status,
        phase: 'downloading',
        progress: {
          bytes: 0,
          total: event.plan.bytesToFetch,
          targetVersion: event.plan.toVersion,
          bytesPerSecond: null,
          remainingMs: null,
        },
      };
    case 'progress':
      // The last progress event of a run reaches the total; applying follows it.
      return {
        ...status,
        phase: event.bytes >= event.total ? 'applying' : 'downloading',
        progress: {
          bytes: event.bytes,
          total: event.total,
          targetVersion: status.progress?.targetVersion ?? null,
          bytesPerSecond: status.progress?.bytesPerSecond ?? null,
          remainingMs: status.progress?.remainingMs ?? null,
        },
      };
    case 'applied':
      return {
        ...status,
        phase: 'idle',
        progress: null,
        installedVersion: event.version,
        lastError: null,
        lastUpdate: {
          fromVersion: event.previousVersion,
          toVersion: event.version,
          atMs: event.atMs,
        },
        canRollBack: event.previousVersion !== null || status.canRollBack,
      };
    case 'probation':
    case 'healthy':
      return status;
    case 'reverted':
      return {
        ...status,
        phase: 'idle',
        progress: null,
        installedVersion: event.restoredVersion ?? status.installedVersion,
        lastError: describeError('HEALTH_CHECK_FAILED', event.reason),
        canRollBack: false,
      };
    case 'version-skipped':
      return { ...status, phase: 'idle', progress: null };
    case 'error':
      return {
        ...status,
        phase: 'idle',
        progress: null,
        lastError: describeError(event.code, event.message),
      };
  }
}

/** Merges the core's persisted status (read at start and after each run). */
export function applyCoreStatus(status: AppStatus, core: UpdaterStatus): AppStatus {
  return {
    ...status,
    installedVersion: core.installedVersion,
    lastCheckAtMs: core.lastCheckAtMs ?? status.lastCheckAtMs,
    // The core is authoritative after a run: a success clears the error it recorded.
    lastError:
      core.lastError === null ? null : describeError(core.lastError.code, core.lastError.message),
    canRollBack: core.canRollBack,
  };
}

/** A one-line summary for the tray menu and tooltip. */
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
