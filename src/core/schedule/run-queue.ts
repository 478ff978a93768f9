/**
 * One run at a time (docs/ARCHITECTURE.md §Habits): runs are queued, and a call of the same kind as the
 * run in flight joins it instead of queueing another (electron-updater's checkForUpdates
 * model). Rollback never joins: each call is its own intent.
 */
import { UpdateError } from '../errors.js';

export type RunKind = 'check' | 'update' | 'rollback' | 'verify' | 'confirm';

export interface RunQueue {
  /** Runs `body` after any run in flight; a call of the same kind joins the running one. */
  run<T>(kind: RunKind, body: () => Promise<T>): Promise<T>;
  /** True while a run is in flight. */
  readonly running: boolean;
  /** Settles once every queued run has. */
  drained(): Promise<unknown>;
}

/** A queue whose runs refuse to start (ABORTED) once `signal` is aborted. */
export function createRunQueue(signal: AbortSignal): RunQueue {
  let inFlight: { kind: RunKind; promise: Promise<unknown> } | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  return {
    run<T>(kind: RunKind, body: () => Promise<T>): Promise<T> {
      if (inFlight !== undefined && inFlight.kind === kind && kind !== 'rollback') {
        return inFlight.promise as Promise<T>;
      }
      const entry: { kind: RunKind; promise: Promise<unknown> } = {
        kind,
        promise: Promise.resolve(),
      };
      const promise = queue.then(async () => {
        try {
          if (signal.aborted) throw new UpdateError('ABORTED', 'updater closed');
          return await body();
        } finally {
          // Cleared before the caller sees the result: a call made afterwards starts a new run.
          if (inFlight === entry) inFlight = undefined;
        }
      });
      entry.promise = promise;
      inFlight = entry;
      queue = promise.catch(() => undefined);
      return promise;
    },
    get running() {
      return inFlight !== undefined;
    },
    drained: () => queue,
  };
}
