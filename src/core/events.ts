/**
 * Typed events of one update run, in the order they can occur:
 * checking -> [healthy | reverted] -> (up-to-date | version-skipped
 *   | update-available -> progress* -> applied -> [probation -> (healthy | reverted)]) | error.
 * The bracketed health events (docs/UPDATER.md §3, Health check) come only with a health check
 * configured; the first pair settles a probation left by an earlier run.
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
  /** Set when `toVersion` failed its health check here: it will not be installed. */
  readonly skipped?: { readonly reason: string };
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
    }
  | {
      readonly type: 'applied';
      readonly version: string;
      readonly previousVersion: string | null;
      readonly atMs: number;
    }
  | {
      /** A set just installed is on probation: checked now, or awaiting confirm(). */
      readonly type: 'probation';
      readonly version: string;
      readonly mode: 'check' | 'confirm';
      /** confirm mode: revert at the next run after this time unless confirmed. */
      readonly deadlineAtMs: number | null;
      readonly atMs: number;
    }
  | {
      /** The set on probation passed its check or was confirmed. */
      readonly type: 'healthy';
      readonly version: string;
      readonly atMs: number;
    }
  | {
      /** The set on probation failed; `restoredVersion` is live again (null: nothing to restore). */
      readonly type: 'reverted';
      readonly version: string;
      readonly restoredVersion: string | null;
      readonly reason: string;
      readonly atMs: number;
    }
  | {
      /** The registry offers a version that failed its health check here: not installed. */
      readonly type: 'version-skipped';
      readonly version: string;
      readonly reason: string;
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
