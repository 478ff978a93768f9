/**
 * The desktop app's logic without Electron: owns the status shown in the window and the tray,
 * runs the updater now or on the schedule, cancels a pull, rolls back, verifies, fetches the
 * activity ranking and tells listeners (docs/DESKTOP.md "Updates"). src/main/index.ts wires it
 * to IPC, the tray and notifications, the web window to HTTP; the e2e test bridge wires the
 * very same controller to a browser page, so the e2e suite exercises this code for real.
 */
import type { UpdateEvent } from '#core/events.js';
import type { UpdaterApi } from '#core/updater-api.js';
import type {
  ActionResult,
  ActivityResult,
  AppStatus,
  UpdatePolicy,
} from '#preload/ipc-contract.js';
import { createControllerActions } from './controller-actions.js';
import { createNotifier, type Notice } from './notifications.js';
import { createOfferActions, offerNotice, watchSkipped } from './offer-actions.js';
import { createStatusHub, type StatusHub } from './status-hub.js';
import { applyCoreStatus } from './status/status-model.js';
import { createUpdateRunner } from './update-runner.js';

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
  /** Opens the log file in the system's viewer. Omitted: Open log says where the log is. */
  readonly openLog?: () => Promise<void>;
  /** Where the log goes when there is no file to open ("in the terminal that runs …"). */
  readonly logLocation?: string;
  /** Remembers the pause choice (the settings file). */
  readonly persistPaused?: (paused: boolean) => void;
  /** Clock for the download speed (default Date.now). */
  readonly nowMs?: () => number;
  /** The update policy, read at each run (default: install automatically). */
  readonly policy?: () => UpdatePolicy;
  /** The version skipped in an earlier session, and where a new choice is kept. */
  readonly skipped?: {
    readonly initial: string | null;
    readonly persist: (version: string | null) => void;
  };
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
  /** Installs the version on offer (the policies "ask" and "notify"). */
  installNow(): Promise<ActionResult>;
  /** Skips the version on offer until a newer one appears. */
  skipVersion(version: string): ActionResult;
  /** Reads the core's persisted status and starts the schedule. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** The parts the controller is made of, shared by its steps. */
interface Parts {
  readonly hub: StatusHub;
  readonly scheduler: CheckScheduler | undefined;
}

/** Creates the controller; call start() once the window can listen. */
export function createAppController(deps: AppControllerDeps): AppController {
  let updater = deps.updater;
  let cancelling: Promise<void> | null = null;
  let closed = false;
  const nowMs = deps.nowMs ?? (() => Date.now());
  const hub = createStatusHub({
    registryLabel: deps.registryLabel,
    nowMs,
    nextRunAtMs: () => scheduler?.nextRunAtMs() ?? null,
  });
  const refresh = statusRefresher(hub, () => (cancelling === null ? updater : null), deps.log);
  const runner = createUpdateRunner({
    updater: () => updater,
    hub,
    cancelling: () => cancelling,
    refresh,
    ...(deps.log === undefined ? {} : { log: deps.log }),
    ...(deps.policy === undefined ? {} : { policy: deps.policy }),
    offered: (plan) => deps.notify?.(offerNotice(plan)),
  });
  // Built after the hub and the runner it drives; the hub asks it only once running.
  const scheduler = deps.createScheduler?.(() => runner.run(true));
  restoreSkipped(hub, deps.skipped);
  const onEvent = eventForwarder(deps, hub, (event) => runner.holds(event));
  let unsubscribe = updater.on(onEvent);
  const actions = createControllerActions({
    hub,
    runner,
    updater: () => updater,
    replaceUpdater(next) {
      unsubscribe();
      updater = next;
      unsubscribe = updater.on(onEvent);
    },
    setCancelling(next) {
      cancelling = next;
    },
    refresh,
    isClosed: () => closed,
    nowMs,
    ...optional(deps),
  });
  const parts: Parts = { hub, scheduler };
  return {
    ...actions,
    ...createOfferActions({ hub, runner, isClosed: () => closed }),
    ...lifecycle(parts, deps, {
      run: (rethrow) => runner.run(rethrow),
      refresh,
      isClosed: () => closed,
      close: async () => {
        closed = true;
        unsubscribe();
        await cancelling;
        await updater.close();
      },
    }),
  };
}

/** A skip from an earlier session holds from the first check (docs/DESKTOP.md "Update policy"). */
function restoreSkipped(hub: StatusHub, skipped: AppControllerDeps['skipped']): void {
  if (skipped === undefined) return;
  hub.publish({ ...hub.current(), skippedVersion: skipped.initial });
  watchSkipped(hub, skipped.initial, skipped.persist);
}

/** Reads the core's status into the hub; skipped while the core is closed and reopened. */
function statusRefresher(
  hub: StatusHub,
  current: () => UpdaterApi | null,
  log: ((line: string) => void) | undefined,
): () => Promise<void> {
  return async () => {
    const updater = current();
    if (updater === null) return; // the core is being closed and reopened
    try {
      hub.publish(applyCoreStatus(hub.current(), await updater.status()));
    } catch (error) {
      log?.(`status read failed: ${describe(error)}`);
    }
  };
}

/** Tells the hub each core event, and the notifier the ones worth a notification. */
function eventForwarder(
  deps: AppControllerDeps,
  hub: StatusHub,
  held: (event: UpdateEvent) => boolean,
): (event: UpdateEvent) => void {
  const notifier = createNotifier();
  return (event) => {
    if (held(event)) return;
    const target = hub.current().progress?.targetVersion ?? null;
    hub.dispatch(event);
    const notice = notifier.noticeFor(event, target);
    if (notice !== null) deps.notify?.(notice);
  };
}

function optional(deps: AppControllerDeps) {
  return {
    ...(deps.reopen === undefined ? {} : { reopen: deps.reopen }),
    ...(deps.openLog === undefined ? {} : { openLog: deps.openLog }),
    ...(deps.logLocation === undefined ? {} : { logLocation: deps.logLocation }),
    ...(deps.log === undefined ? {} : { log: deps.log }),
  };
}

interface LifecycleHooks {
  readonly run: (rethrow: boolean) => Promise<void>;
  readonly refresh: () => Promise<void>;
  readonly isClosed: () => boolean;
  readonly close: () => Promise<void>;
}

/** Status reads, Check now, pause and the start and end of the controller. */
function lifecycle(
  { hub, scheduler }: Parts,
  deps: AppControllerDeps,
  hooks: LifecycleHooks,
): Omit<
  AppController,
  'cancel' | 'rollBack' | 'verify' | 'openLog' | 'installNow' | 'skipVersion'
> {
  const setPaused = (paused: boolean): void => {
    if (paused === hub.current().paused || hooks.isClosed()) return;
    if (paused) scheduler?.stop();
    else scheduler?.start();
    deps.persistPaused?.(paused);
    hub.dispatch({ type: 'paused', paused });
  };
  return {
    // Computed on read: the scheduler plans its next run after a run's last event.
    getStatus: () => hub.current(),
    async checkNow() {
      if (hooks.isClosed()) return;
      // Through the scheduler when it runs, so a manual check also re-plans the next one;
      // the scheduler swallows the failure (recorded in the status by the runner).
      if (scheduler !== undefined && !hub.current().paused) await scheduler.runNow();
      else await hooks.run(false);
      hub.publish(hub.current());
    },
    getActivity: () => deps.fetchActivity(),
    onStatus: (listener) => hub.listen(listener),
    setPaused,
    async start() {
      await hooks.refresh();
      if (!hub.current().paused) scheduler?.start();
      hub.publish(hub.current());
    },
    async close() {
      if (hooks.isClosed()) return;
      scheduler?.stop();
      hub.clear();
      await hooks.close();
    },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
