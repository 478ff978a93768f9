/**
 * The desktop app's logic without Electron: owns the status shown in the window and the tray,
 * runs the updater now or on the schedule, cancels a pull, rolls back, verifies, fetches the
 * activity ranking and tells listeners (docs/DESKTOP.md "Updates"). src/main/index.ts wires it
 * to IPC, the tray and notifications, the web window to HTTP; the e2e test bridge wires the
 * very same controller to a browser page, so the e2e suite exercises this code for real.
 */
import { isUpdateError } from '#core/errors.js';
import type { UpdateEvent } from '#core/events.js';
import type { UpdaterApi } from '#core/updater-api.js';
import type { ActionResult, ActivityResult, AppStatus } from '#preload/ipc-contract.js';
import { busy, failed, verifyResult } from './action-results.js';
import { createNotifier, type Notice } from './notifications.js';
import { describeError } from './status/refusal-words.js';
import { applyCoreStatus, applyEvent, initialStatus } from './status/status-model.js';
import { createRateMeter } from './transfer-rate.js';

/** The schedule of automatic checks (src/core/schedule/scheduler.ts behind an adapter). */
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
  /**
   * Opens the same core again. Cancel closes the core (which aborts the run and keeps the
   * verified partial bytes) and reopens it. Omitted: Cancel is refused.
   */
  readonly reopen?: () => Promise<UpdaterApi>;
  /** Opens the log file in the system's viewer. Omitted: Open log is refused. */
  readonly openLog?: () => Promise<void>;
  /** Remembers the pause choice (the settings file). */
  readonly persistPaused?: (paused: boolean) => void;
  /** Clock for the download speed (default Date.now). */
  readonly nowMs?: () => number;
}

export interface AppController {
  getStatus(): AppStatus;
  /** Runs an update now (joining one in flight). Never rejects: failures land in the status. */
  checkNow(): Promise<void>;
  getActivity(): Promise<ActivityResult>;
  onStatus(listener: (status: AppStatus) => void): () => void;
  setPaused(paused: boolean): void;
  /** Stops the run in flight; the next automatic check comes after the normal interval. */
  cancel(): Promise<ActionResult>;
  rollBack(): Promise<ActionResult>;
  verify(): Promise<ActionResult>;
  openLog(): Promise<ActionResult>;
  /** Reads the core's persisted status and starts the schedule. */
  start(): Promise<void>;
  close(): Promise<void>;
}

const UNEXPECTED = 'The update stopped unexpectedly; see the log file.';

/** Creates the controller; call start() once the window can listen. */
export function createAppController(deps: AppControllerDeps): AppController {
  let status = initialStatus(deps.registryLabel);
  let updater = deps.updater;
  let inFlight: Promise<void> | null = null;
  /** Set while Cancel closes and reopens the core: the aborted run is not a failure. */
  let cancelling: Promise<void> | null = null;
  let closed = false;
  const nowMs = deps.nowMs ?? (() => Date.now());
  const listeners = new Set<(status: AppStatus) => void>();
  const notifier = createNotifier();
  const meter = createRateMeter();
  const scheduler = deps.createScheduler?.(() => runOnce(true));

  const withNextCheck = (next: AppStatus): AppStatus => ({
    ...next,
    nextCheckAtMs: next.paused ? null : (scheduler?.nextRunAtMs() ?? null),
  });
  const publish = (next: AppStatus): void => {
    status = withNextCheck(next);
    for (const listener of listeners) listener(status);
  };

  const onEvent = (event: UpdateEvent): void => {
    const target = status.progress?.targetVersion ?? null;
    let next = applyEvent(status, event);
    if (event.type === 'progress' && next.progress !== null) {
      meter.add(event.bytes, nowMs());
      next = {
        ...next,
        progress: {
          ...next.progress,
          bytesPerSecond: meter.bytesPerSecond(),
          remainingMs: meter.remainingMs(event.total),
        },
      };
    }
    publish(next);
    const notice = notifier.noticeFor(event, target);
    if (notice !== null) deps.notify?.(notice);
  };
  let unsubscribe = updater.on(onEvent);

  async function refreshFromCore(): Promise<void> {
    if (cancelling !== null) return; // the core is being closed and reopened
    try {
      publish(applyCoreStatus(status, await updater.status()));
    } catch (error) {
      deps.log?.(`status read failed: ${describe(error)}`);
    }
  }

  function runOnce(rethrow: boolean): Promise<void> {
    if (inFlight === null) {
      inFlight = (async () => {
        if (cancelling !== null) await cancelling;
        try {
          await updater.update();
        } finally {
          await refreshFromCore();
        }
      })().finally(() => {
        inFlight = null;
      });
    }
    const run = inFlight;
    return run.catch((error: unknown) => {
      // Cancelled on purpose: the next automatic check comes after the normal interval.
      if (cancelling !== null) return;
      recordFailure(error);
      // The scheduler needs the failure (and its Retry-After) to back off.
      if (rethrow) throw error;
    });
  }

  function recordFailure(error: unknown): void {
    if (isUpdateError(error)) {
      // The core has already emitted an 'error' event; keep its code in the status anyway.
      const lastError = describeError(error.code, error.message);
      publish({ ...status, phase: 'idle', progress: null, lastError });
      return;
    }
    deps.log?.(`update failed unexpectedly: ${describe(error)}`);
    publish({
      ...status,
      phase: 'idle',
      progress: null,
      lastError: { ...describeError('IO', UNEXPECTED), words: UNEXPECTED },
    });
  }

  const setPaused = (paused: boolean): void => {
    if (paused === status.paused || closed) return;
    if (paused) scheduler?.stop();
    else scheduler?.start();
    deps.persistPaused?.(paused);
    publish({ ...status, paused });
  };

  async function cancel(): Promise<ActionResult> {
    const run = inFlight;
    if (run === null || closed) return { ok: true, words: 'No update is running.' };
    if (deps.reopen === undefined) {
      return failed(null, 'This window cannot cancel an update; it ends on its own.');
    }
    const reopen = deps.reopen;
    const target = status.progress?.targetVersion ?? null;
    let done: () => void = () => undefined;
    cancelling = new Promise<void>((resolve) => (done = resolve));
    try {
      // close() aborts the run in flight and keeps the verified partial bytes.
      await updater.close();
      await run.catch(() => undefined);
      unsubscribe();
      updater = await reopen();
      unsubscribe = updater.on(onEvent);
    } catch (error) {
      deps.log?.(`reopening after cancel failed: ${describe(error)}`);
      return failed(error, 'The updater could not be reopened after cancelling.');
    } finally {
      cancelling = null;
      done();
    }
    await refreshFromCore();
    const words =
      target === null ? 'The update was cancelled.' : `The update to ${target} was cancelled.`;
    publish({
      ...status,
      phase: 'idle',
      progress: null,
      lastError: { ...describeError('ABORTED', words), words },
    });
    return { ok: true, words };
  }

  async function rollBack(): Promise<ActionResult> {
    if (inFlight !== null) return busy('roll back');
    const from = status.installedVersion;
    try {
      const result = await updater.rollback();
      await refreshFromCore();
      // Otherwise the next automatic check would install the newer version again.
      setPaused(true);
      const to = result.version ?? 'nothing installed';
      publish({ ...status, lastUpdate: { fromVersion: from, toVersion: to, atMs: nowMs() } });
      return {
        ok: true,
        words: `Rolled back from ${from ?? 'nothing'} to ${to}. Automatic updates are paused so it stays; resume them to get the newer version again.`,
      };
    } catch (error) {
      return failed(error, 'Roll back stopped unexpectedly; see the log file.');
    }
  }

  async function verify(): Promise<ActionResult> {
    if (inFlight !== null) return busy('verify');
    try {
      return verifyResult(await updater.verify());
    } catch (error) {
      return failed(error, 'Verify stopped unexpectedly; see the log file.');
    }
  }

  async function openLog(): Promise<ActionResult> {
    if (deps.openLog === undefined) return failed(null, 'This window cannot open the log file.');
    try {
      await deps.openLog();
      return { ok: true, words: 'The log file is open in your viewer.' };
    } catch (error) {
      return failed(error, 'The log file could not be opened.');
    }
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
    setPaused,
    cancel,
    rollBack,
    verify,
    openLog,
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
      await cancelling;
      await updater.close();
    },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
