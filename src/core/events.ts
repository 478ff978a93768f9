/**
 * Typed events of one update run, in the order they can occur:
 * checking -> (up-to-date | update-available -> progress* -> applied) | error.
 * The desktop app and the CLI render these; nothing else crosses the core's boundary.
 */
import type { UpdateErrorCode } from './errors.js';

/** What a plan will do, before any byte is pulled (the dry-run API). */
export interface PlanSummary {
  readonly fromVersion: string | null;
  readonly toVersion: string;
  readonly fetch: readonly { readonly name: string; readonly size: number }[];
  readonly reuse: readonly { readonly name: string; readonly size: number }[];
  readonly remove: readonly string[];
  readonly bytesToFetch: number;
  readonly bytesToReuse: number;
}

export type UpdateEvent =
  | { readonly type: 'checking'; readonly atMs: number }
  | { readonly type: 'up-to-date'; readonly version: string | null; readonly atMs: number }
  | { readonly type: 'update-available'; readonly plan: PlanSummary; readonly atMs: number }
  | {
      readonly type: 'progress';
      /** Bytes verified-in so far across the run (resumed bytes included). */
      readonly bytes: number;
      /** Total bytes to fetch in this run. */
      readonly total: number;
      /** Artifact name currently receiving bytes. */
      readonly artifact: string;
      /**
       * Bytes received from the network so far in this run: resumed partial bytes and chunks
       * reused from local files are not counted, so a rate computed from it is the real one.
       */
      readonly received?: number;
    }
  | {
      readonly type: 'applied';
      readonly version: string;
      readonly previousVersion: string | null;
      readonly atMs: number;
    }
  | {
      readonly type: 'error';
      readonly code: UpdateErrorCode;
      readonly message: string;
      readonly atMs: number;
    };

export type UpdateEventType = UpdateEvent['type'];
export type UpdateListener = (event: UpdateEvent) => void;
