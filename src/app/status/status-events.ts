/**
 * The events the card's state machine (status-machine.ts) is told: the core's own and the
 * app's (docs/DESKTOP.md "Updates").
 */
import type { PlanSummary, UpdateEvent } from '#core/events.js';
import type { ErrorView } from '#preload/ipc-contract.js';

/** What the app itself does, told to the machine like the core's events. */
export type AppEvent =
  | { readonly type: 'offered'; readonly plan: PlanSummary; readonly notes: string | null }
  | {
      readonly type: 'cancelled';
      readonly targetVersion: string | null;
      readonly keptBytes: number;
    }
  | {
      readonly type: 'rolled-back';
      readonly from: string | null;
      readonly to: string | null;
      readonly atMs: number;
    }
  | { readonly type: 'failed'; readonly error: ErrorView }
  | { readonly type: 'paused'; readonly paused: boolean }
  | { readonly type: 'verifying'; readonly running: boolean }
  | { readonly type: 'skipped-by-user'; readonly version: string };

export type StatusEvent = UpdateEvent | AppEvent;

const APP_EVENTS: ReadonlySet<string> = new Set<AppEvent['type']>([
  'offered',
  'cancelled',
  'rolled-back',
  'failed',
  'paused',
  'verifying',
  'skipped-by-user',
]);

/** True for the core's own events (as opposed to the app's). */
export function isCoreEvent(event: StatusEvent): event is UpdateEvent {
  return !APP_EVENTS.has(event.type);
}
