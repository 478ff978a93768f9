/**
 * The controller's one status value and its listeners (docs/DESKTOP.md "Updates"): every
 * change goes through `dispatch` (the state machine) and is told to each listener. The rate
 * meter lives here because speed is part of the status: it restarts on every new transfer
 * (each run's `checking` and `update-available`) and on a resume (transfer-rate.ts).
 */
import type { UpdateEvent } from '#core/events.js';
import type { AppStatus } from '#preload/ipc-contract.js';
import { applyEvent, initialStatus, isCoreEvent, type StatusEvent } from './status/status-model.js';
import { createRateMeter } from './transfer-rate.js';

export interface StatusHub {
  current(): AppStatus;
  /** Applies one event and tells the listeners. */
  dispatch(event: StatusEvent): void;
  /** Replaces the value (facts the core persisted) and tells the listeners. */
  publish(next: AppStatus): void;
  listen(listener: (status: AppStatus) => void): () => void;
  clear(): void;
}

export interface StatusHubOptions {
  readonly registryLabel: string;
  readonly nowMs: () => number;
  /** When the next automatic run is due (asked at every publish). */
  readonly nextRunAtMs: () => number | null;
}

export function createStatusHub(options: StatusHubOptions): StatusHub {
  let status = initialStatus(options.registryLabel);
  const listeners = new Set<(status: AppStatus) => void>();
  const meter = createRateMeter();

  const withNextCheck = (next: AppStatus): AppStatus => ({
    ...next,
    nextCheckAtMs: next.paused ? null : options.nextRunAtMs(),
  });
  const publish = (next: AppStatus): void => {
    status = withNextCheck(next);
    for (const listener of listeners) listener(status);
  };

  const measure = (event: UpdateEvent, next: AppStatus): AppStatus => {
    if (event.type === 'checking' || event.type === 'update-available') meter.restart();
    if (event.type !== 'progress' || next.progress === null) return next;
    // Bytes from the network when the core counts them: resumed bytes are not speed.
    meter.add(event.received ?? event.bytes, options.nowMs());
    const received = event.received ?? event.bytes;
    const remainingMs = meter.remainingMs(received + (event.total - event.bytes));
    return {
      ...next,
      progress: { ...next.progress, bytesPerSecond: meter.bytesPerSecond(), remainingMs },
    };
  };

  return {
    current: () => withNextCheck(status),
    dispatch(event) {
      const next = applyEvent(status, event);
      publish(isCoreEvent(event) ? measure(event, next) : next);
    },
    publish,
    listen(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    clear: () => listeners.clear(),
  };
}
