/**
 * The card's state machine (docs/DESKTOP.md "Updates"): one current state, reached from the
 * core's events and the app's own (cancel, roll back, verify, pause, an offer the policy holds
 * back). Every transition builds the next status from what still holds, so an error box never
 * stays beside a running download and a result line never outlives the state it was written
 * in. Pure: the controller owns the value and the clock.
 */
export { isCoreEvent, type AppEvent, type StatusEvent } from './status-events.js';
import type { PlanSummary, UpdateEvent } from '#core/events.js';
import type {
  AppStatus,
  ErrorView,
  StatusNotice,
  StatusState,
  UpdatePhase,
} from '#preload/ipc-contract.js';
import { describeError } from './refusal-words.js';
import type { AppEvent, StatusEvent } from './status-events.js';
import {
  appliedNotice,
  cancelledNotice,
  headlineFor,
  healthSkippedNotice,
  revertedNotice,
  rolledBackNotice,
  upToDateNotice,
} from './status-words.js';

/** What a transition decides; `settle` fills in the rest (the cleared fields, the words). */
interface Next {
  readonly state: StatusState;
  readonly targetVersion?: string | null;
  readonly notice?: StatusNotice | null;
  readonly patch?: Partial<AppStatus>;
}

const STATE_PHASE: Readonly<Record<StatusState, UpdatePhase>> = {
  idle: 'idle',
  checking: 'checking',
  available: 'idle',
  downloading: 'downloading',
  verifying: 'applying',
  installing: 'applying',
  // A probation awaiting confirmation can last days; the window stays usable meanwhile.
  probation: 'idle',
  'up-to-date': 'idle',
  'rolled-back': 'idle',
  paused: 'idle',
  failed: 'idle',
};

/** States in which nothing is running and the user's last answer still holds. */
const AT_REST: ReadonlySet<StatusState> = new Set(['idle', 'up-to-date', 'rolled-back', 'paused']);

/** Applies one event: the whole transition table. */
export function reduceStatus(status: AppStatus, event: StatusEvent): AppStatus {
  // Pausing during a run, an offer or a failure changes only the schedule, not what is shown.
  if (event.type === 'paused' && !AT_REST.has(status.state)) {
    return { ...status, paused: event.paused };
  }
  if (event.type === 'verifying' && !event.running && status.state !== 'verifying') return status;
  const next = transition(status, event);
  return next === null ? status : settle(status, next);
}

function transition(status: AppStatus, event: StatusEvent): Next | null {
  switch (event.type) {
    case 'checking':
      return { state: 'checking', patch: { lastCheckAtMs: event.atMs } };
    case 'up-to-date':
      return {
        state: 'up-to-date',
        notice: status.skippedVersion === null ? null : upToDateNotice(null, status.skippedVersion),
        patch: { installedVersion: event.version ?? status.installedVersion },
      };
    case 'update-available':
      return downloadStarts(status, event.plan);
    case 'progress':
      return progressArrives(status, event);
    case 'applied':
      return applied(status, event);
    case 'probation':
      return { state: 'probation', targetVersion: event.version };
    case 'healthy':
      return healthy(status, event.version);
    case 'reverted':
      return {
        state: 'rolled-back',
        notice: revertedNotice(event.version, event.restoredVersion),
        patch: {
          installedVersion: event.restoredVersion ?? status.installedVersion,
          canRollBack: false,
        },
      };
    case 'version-skipped':
      return { state: 'up-to-date', notice: healthSkippedNotice(event.version) };
    case 'error':
      // A cancel aborts the run on purpose: the controller tells it as news ('cancelled').
      if (event.code === 'ABORTED') return { state: restState(status) };
      return failed(status, describeError(event.code, event.message));
    default:
      return appTransition(status, event);
  }
}

function appTransition(status: AppStatus, event: AppEvent): Next | null {
  switch (event.type) {
    case 'offered':
      return {
        state: 'available',
        targetVersion: event.plan.toVersion,
        patch: {
          offer: {
            version: event.plan.toVersion,
            downloadBytes: event.plan.bytesToFetch,
            notes: event.notes,
          },
        },
      };
    case 'cancelled':
      return {
        state: restState(status),
        notice: cancelledNotice(event.targetVersion, event.keptBytes),
      };
    case 'rolled-back':
      return rolledBack(event);
    case 'failed':
      return failed(status, event.error);
    case 'paused':
      return paused(status, event.paused);
    case 'verifying':
      if (event.running) return { state: 'verifying' };
      return { state: restState(status) };
    case 'skipped-by-user':
      return { state: 'up-to-date', notice: upToDateNotice(null, event.version) };
  }
}

function downloadStarts(status: AppStatus, plan: PlanSummary): Next {
  const changesOnly = plan.artifacts.some((artifact) => artifact.method === 'chunks');
  return {
    state: 'downloading',
    targetVersion: plan.toVersion,
    patch: {
      // A newer version than the one left by a rollback ends the skip.
      skippedVersion: status.skippedVersion === plan.toVersion ? status.skippedVersion : null,
      progress: {
        bytes: 0,
        total: plan.bytesToFetch,
        targetVersion: plan.toVersion,
        bytesPerSecond: null,
        remainingMs: null,
        artifact: null,
        savedBytes: plan.bytesToReuse,
        changesOnly,
      },
    },
  };
}

function progressArrives(
  status: AppStatus,
  event: Extract<UpdateEvent, { type: 'progress' }>,
): Next | null {
  const before = status.progress;
  // Progress only continues a download this machine announced; a straggler is ignored.
  if (before === null) return null;
  return {
    // The last progress event of a run reaches the total; installing follows it.
    state: event.bytes >= event.total ? 'installing' : 'downloading',
    targetVersion: before.targetVersion,
    patch: {
      progress: { ...before, bytes: event.bytes, total: event.total, artifact: event.artifact },
    },
  };
}

function applied(status: AppStatus, event: Extract<UpdateEvent, { type: 'applied' }>): Next {
  const kind = event.previousVersion === null ? 'install' : 'update';
  return {
    state: 'up-to-date',
    notice: appliedNotice(event.previousVersion, event.version),
    patch: {
      installedVersion: event.version,
      lastUpdate: {
        kind,
        fromVersion: event.previousVersion,
        toVersion: event.version,
        atMs: event.atMs,
      },
      canRollBack: event.previousVersion !== null || status.canRollBack,
    },
  };
}

function healthy(status: AppStatus, version: string): Next {
  const last = status.lastUpdate;
  const notice =
    last !== null && last.toVersion === version && last.kind !== 'rollback'
      ? appliedNotice(last.fromVersion, last.toVersion)
      : null;
  return { state: 'up-to-date', notice };
}

function rolledBack(event: Extract<AppEvent, { type: 'rolled-back' }>): Next {
  return {
    state: 'rolled-back',
    notice: rolledBackNotice(event.from, event.to),
    patch: {
      installedVersion: event.to,
      skippedVersion: event.from,
      lastUpdate: {
        kind: 'rollback',
        fromVersion: event.from,
        toVersion: event.to ?? 'nothing installed',
        atMs: event.atMs,
      },
    },
  };
}

function failed(status: AppStatus, error: ErrorView): Next {
  const progress = status.progress;
  const target = progress?.targetVersion ?? status.targetVersion;
  return {
    state: 'failed',
    targetVersion: target,
    patch: {
      lastError: error,
      kept:
        progress !== null && progress.bytes > 0
          ? {
              targetVersion: progress.targetVersion,
              keptBytes: progress.bytes,
              total: progress.total,
            }
          : null,
    },
  };
}

function paused(status: AppStatus, isPaused: boolean): Next {
  return {
    state: isPaused ? 'paused' : status.state === 'paused' ? 'idle' : status.state,
    // Pausing is not news about an update: what the card said still holds, unless it moved.
    notice: isPaused || status.state === 'paused' ? null : status.notice,
    targetVersion: status.targetVersion,
    patch: { paused: isPaused },
  };
}

/** Where a finished or stopped step leaves the card. */
function restState(status: AppStatus): StatusState {
  return status.paused ? 'paused' : 'idle';
}

/** Builds the next status: fields of the old state that no longer hold are cleared. */
function settle(status: AppStatus, next: Next): AppStatus {
  const state = next.state;
  const keepsProgress = state === 'downloading' || state === 'installing';
  const merged: AppStatus = {
    ...status,
    lastError: null,
    kept: null,
    offer: null,
    progress: keepsProgress ? status.progress : null,
    notice: next.notice ?? null,
    ...next.patch,
    state,
    phase: STATE_PHASE[state],
    targetVersion: next.targetVersion ?? null,
  };
  return { ...merged, headline: headlineOf(merged) };
}

/** The headline of a status, from its state and facts. */
export function headlineOf(status: AppStatus): string {
  return headlineFor(status.state, {
    installedVersion: status.installedVersion,
    targetVersion: status.targetVersion,
    skippedVersion: status.skippedVersion,
    errorKind: status.lastError?.kind ?? null,
  });
}
