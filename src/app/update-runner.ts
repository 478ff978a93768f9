/**
 * One update run at a time for the controller (docs/ARCHITECTURE.md §Habits, 7): a second
 * request joins the run in flight. A version the user left by rolling back is not installed
 * again (docs/DESKTOP.md "Updates"): the run first asks the core what it would install, and
 * when that is the skipped version it says so instead of pulling it.
 */
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
}

export interface UpdateRunner {
  /** Runs (or joins) one update; rejects only when `rethrow` (the scheduler backs off). */
  run(rethrow: boolean): Promise<void>;
  inFlight(): Promise<void> | null;
  /** True for an event the runner keeps from the card (the skip probe's offer). */
  holds(event: UpdateEvent): boolean;
}

const UNEXPECTED = 'The update stopped unexpectedly; see the log file.';

export function createUpdateRunner(deps: UpdateRunnerDeps): UpdateRunner {
  let inFlight: Promise<void> | null = null;
  let probing = false;

  async function probeFindsSkipped(skipped: string): Promise<boolean> {
    probing = true;
    try {
      const plan = await deps.updater().check();
      return plan.toVersion === skipped && plan.skipped === undefined;
    } finally {
      probing = false;
    }
  }

  async function perform(): Promise<void> {
    const cancelling = deps.cancelling();
    if (cancelling !== null) await cancelling;
    try {
      const skipped = deps.hub.current().skippedVersion;
      if (skipped !== null && (await probeFindsSkipped(skipped))) {
        deps.hub.dispatch({ type: 'skipped-by-user', version: skipped });
        return;
      }
      await deps.updater().update();
    } finally {
      await deps.refresh();
    }
  }

  function recordFailure(error: unknown): void {
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

  return {
    run(rethrow) {
      inFlight ??= perform().finally(() => {
        inFlight = null;
      });
      return inFlight.catch((error: unknown) => {
        // Cancelled on purpose: the next automatic check comes after the normal interval.
        if (deps.cancelling() !== null) return;
        if (isUpdateError(error) && error.code === 'ABORTED') return;
        recordFailure(error);
        if (rethrow) throw error;
      });
    },
    inFlight: () => inFlight,
    holds: (event) => probing && event.type === 'update-available',
  };
}
