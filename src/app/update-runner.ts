/**
 * One update run at a time for the controller (docs/ARCHITECTURE.md §Habits, 7): a second
 * request joins the run in flight. A version the user skipped (or left by rolling back) is
 * not installed again (docs/DESKTOP.md "Updates"): the run first asks the core what it would
 * install, and when that is the skipped version it says so instead of pulling it. Under the
 * update policies "ask" and "notify" (docs/DESKTOP.md "Update policy") a run that finds a new
 * version stops after verification and planning and offers it; Install now installs it.
 */
import type { PlanSummary } from '#core/events.js';
import type { UpdatePolicy } from '#preload/ipc-contract.js';
import { isUpdateError } from '#core/errors.js';
import type { UpdateEvent } from '#core/events.js';
import type { UpdaterApi } from '#core/updater-api.js';
import type { StatusHub } from './status-hub.js';
import { describeError } from './status/refusal-words.js';

export interface UpdateRunnerDeps {
  readonly updater: () => UpdaterApi;
  readonly hub: StatusHub;
  /** Set while Cancel closes and reopens the core: the aborted run is not a failure. */
  readonly cancelling: () => Promise<void> | null;
  /** Reads the core's persisted status into the hub after each run. */
  readonly refresh: () => Promise<void>;
  readonly log?: (message: string) => void;
  /** The update policy, read at each run (default: install automatically). */
  readonly policy?: () => UpdatePolicy;
  /** Tells the user a version is offered (the policies "ask" and "notify"). */
  readonly offered?: (plan: PlanSummary) => void;
}

export interface UpdateRunner {
  /**
   * Runs (or joins) one update; rejects only when `rethrow` (the scheduler backs off).
   * `install`: the user chose Install now, so the policy's question is answered.
   */
  run(rethrow: boolean, install?: boolean): Promise<void>;
  inFlight(): Promise<void> | null;
  /** True for an event the runner keeps from the card (the skip probe's offer). */
  holds(event: UpdateEvent): boolean;
}

const UNEXPECTED = 'The update stopped unexpectedly; see the log file.';

/** True when the run stops before any download: a skipped version, or one to offer. */
function stopsBefore(deps: UpdateRunnerDeps, plan: PlanSummary, offer: boolean): boolean {
  const status = deps.hub.current();
  const skipped = status.skippedVersion;
  if (skipped !== null && plan.toVersion === skipped && plan.skipped === undefined) {
    deps.hub.dispatch({ type: 'skipped-by-user', version: skipped });
    return true;
  }
  // The same version (a repair) or one that failed its health check here is not news.
  const news = plan.toVersion !== status.installedVersion && plan.skipped === undefined;
  if (!offer || !news) return false;
  deps.hub.dispatch({ type: 'offered', plan, notes: plan.notes ?? null });
  deps.offered?.(plan);
  return true;
}

function recordFailure(deps: UpdateRunnerDeps, error: unknown): void {
  if (isUpdateError(error)) {
    // The core has already emitted an 'error' event; this covers a run that did not.
    if (deps.hub.current().state !== 'failed') {
      deps.hub.dispatch({ type: 'failed', error: describeError(error.code, error.message) });
    }
    return;
  }
  deps.log?.(
    `update failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`,
  );
  const words = UNEXPECTED;
  deps.hub.dispatch({ type: 'failed', error: { ...describeError('IO', words), words } });
}

export function createUpdateRunner(deps: UpdateRunnerDeps): UpdateRunner {
  let inFlight: Promise<void> | null = null;
  let probing = false;

  async function probe(): Promise<PlanSummary> {
    probing = true;
    try {
      return await deps.updater().check();
    } finally {
      probing = false;
    }
  }

  async function perform(install: boolean): Promise<void> {
    const cancelling = deps.cancelling();
    if (cancelling !== null) await cancelling;
    try {
      const offer = !install && (deps.policy?.() ?? 'auto') !== 'auto';
      if (
        (offer || deps.hub.current().skippedVersion !== null) &&
        stopsBefore(deps, await probe(), offer)
      ) {
        return;
      }
      await deps.updater().update();
    } finally {
      await deps.refresh();
    }
  }

  return {
    run(rethrow, install = false) {
      inFlight ??= perform(install).finally(() => {
        inFlight = null;
      });
      return inFlight.catch((error: unknown) => {
        // Cancelled on purpose: the next automatic check comes after the normal interval.
        if (deps.cancelling() !== null) return;
        if (isUpdateError(error) && error.code === 'ABORTED') return;
        recordFailure(deps, error);
        if (rethrow) throw error;
      });
    },
    inFlight: () => inFlight,
    holds: (event) => probing && event.type === 'update-available',
  };
}
