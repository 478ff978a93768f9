/**
 * The desktop app's logic without Electron: owns the status shown in the window and the tray,
 * runs the updater now or on the schedule, fetches the activity ranking and tells listeners.
 * src/main/index.ts wires it to IPC, the tray and notifications; the e2e test bridge wires the
 * very same controller to a browser page, so the e2e suite exercises this code for real.
 */
import { isUpdateError } from '../core/errors.js';
import type { UpdateEvent } from '../core/events.js';
import type { UpdaterApi } from '../core/updater-api.js';
import type { ActivityResult, AppStatus } from '../preload/ipc-contract.js';
import { noticeFor, type Notice } from './notifications.js';
import { applyCoreStatus, applyEvent, initialStatus } from './status-model.js';

/** The schedule of automatic checks (src/core/scheduler.ts behind an adapter). */
export interface CheckScheduler {
  start(): void;
  stop(): void;
  /** When the next automatic run is due, or null when none is planned. */
  nextRunAtMs(): number | null;
  /** Runs now (joining a run in flight) and plans the next run from the outcome. */
  runNow(): Promise<void>;
}

export interface AppControllerDeps {
  readonly updater: UpdaterApi;
  readonly registryLabel: string;
  readonly fetchActivity: () => Promise<ActivityResult>;
  /**
   * Builds the scheduler; `run` performs one update and rejects on failure so the scheduler
   * can back off. Omitted: checks run only on demand.
   */
  readonly createScheduler?: (run: () => Promise<void>) => CheckScheduler;
  readonly notify?: (notice: Notice) => void;
  /** Errors that are not the core's own (bugs, I/O surprises) are logged, never thrown. */
  readonly log?: (message: string) => void;
}

export interface AppController {
  getStatus(): AppStatus;
  /** Runs an update now (joining one in flight). Never rejects: failures land in the status. */
  checkNow(): Promise<void>;
  getActivity(): Promise<ActivityResult>;
  onStatus(listener: (status: AppStatus) => void): () => void;
  setPaused(paused: boolean): void;
  /** Reads the core's persisted status and starts the schedule. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Creates the controller; call start() once the window can listen. */
export function createAppController(deps: AppControllerDeps): AppController {
  let status = initialStatus(deps.registryLabel);
  let inFlight: Promise<void> | null = null;
  let closed = false;
  const listeners = new Set<(status: AppStatus) => void>();
  const scheduler = deps.createScheduler?.(() => runOnce(true));

  const withNextCheck = (next: AppStatus): AppStatus => ({
    ...next,
    nextCheckAtMs: next.paused ? null : (scheduler?.nextRunAtMs() ?? null),
  });
  const publish = (next: AppStatus): void => {
    status = withNextCheck(next);
    for (const listener of listeners) listener(status);
  };

  const unsubscribe = deps.updater.on((event: UpdateEvent) => {
    publish(applyEvent(status, event));
    const notice = noticeFor(event);
    if (notice !== null) deps.notify?.(notice);
  });

  async function refreshFromCore(): Promise<void> {
    try {
      publish(applyCoreStatus(status, await deps.updater.status()));
    } catch (error) {
      deps.log?.(`status read failed: ${describe(error)}`);
    }
  }

  function runOnce(rethrow: boolean): Promise<void> {
    if (inFlight === null) {
      inFlight = (async () => {
        try {
          await deps.updater.update();
        } finally {
          await refreshFromCore();
        }
      })().finally(() => {
        inFlight = null;
      });
    }
    const run = inFlight;
    return run.catch((error: unknown) => {
      recordFailure(error);
      // The scheduler needs the failure (and its Retry-After) to back off.
      if (rethrow) throw error;
    });
  }

  function recordFailure(error: unknown): void {
    if (isUpdateError(error)) {
      // The core has already emitted an 'error' event; keep its code in the status anyway.
      publish({ ...status, phase: 'idle', progress: null, lastError: error.toJSON() });
      return;
    }
    deps.log?.(`update failed unexpectedly: ${describe(error)}`);
    publish({
      ...status,
      phase: 'idle',
      progress: null,
      lastError: { code: 'IO', message: 'The update stopped unexpectedly; see the log file.' },
    });
  }

  return {
    // Computed on read: the scheduler plans its next run after a run's last event.
    getStatus: () => withNextCheck(status),
    async checkNow() {
      if (closed) return;
      // Through the scheduler when it runs, so a manual check also re-plans the next one;
      // the scheduler swallows the failure (recorded in the status by runOnce).
      if (scheduler !== undefined && !status.paused) await scheduler.runNow();
      else await runOnce(false);
      publish(status);
    },
    getActivity: () => deps.fetchActivity(),
    onStatus(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    setPaused(paused) {
      if (paused === status.paused || closed) return;
      if (paused) scheduler?.stop();
      else scheduler?.start();
      status = { ...status, paused };
      publish(status);
    },
    async start() {
      await refreshFromCore();
      if (!status.paused) scheduler?.start();
      publish(status);
    },
    async close() {
      if (closed) return;
      closed = true;
      scheduler?.stop();
      unsubscribe();
      listeners.clear();
      await deps.updater.close();
    },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
