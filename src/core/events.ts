/**
 * Typed events of one update run, in the order they can occur:
 * checking -> [healthy | reverted] -> (up-to-date | version-skipped
 *   | update-available -> progress* -> applied -> [probation -> (healthy | reverted)]) | error.
 * The bracketed health events (docs/UPDATER.md §3, Health check) come only with a health check
 * configured; the first pair settles a probation left by an earlier run.
 * The desktop app and the CLI render these; nothing else crosses the core's boundary.
 */
import type { UpdateErrorCode } from './errors.js';

/**
 * How one artifact of the new set comes to be: `reuse` (its digest is held already, or fetched
 * once for an earlier entry), `whole` (fetched as one file) or `chunks` (assembled from held
 * chunks and fetched ranges, docs/UPDATER.md §9). `fetchBytes + reusedBytes = size`.
 */
export interface ArtifactPlan {
  readonly name: string;
  readonly size: number;
  readonly method: 'reuse' | 'whole' | 'chunks';
  /** Artifact bytes to fetch: 0, the size, or the bytes of the missing chunks. */
  readonly fetchBytes: number;
  /** Artifact bytes taken from what is held (installed files, kept blobs, held chunks). */
  readonly reusedBytes: number;
  /** Chunk index and chunk list bytes already fetched to plan (`chunks` only, else 0). */
  readonly indexBytes: number;
}

/** What a plan will do, before any byte is pulled (the dry-run API). */
export interface PlanSummary {
  readonly fromVersion: string | null;
  readonly toVersion: string;
  readonly fetch: readonly { readonly name: string; readonly size: number }[];
  readonly reuse: readonly { readonly name: string; readonly size: number }[];
  readonly remove: readonly string[];
  /** Artifact bytes to fetch: `artifacts[].fetchBytes` added up. */
  readonly bytesToFetch: number;
  /** Artifact bytes reused: `artifacts[].reusedBytes` added up. */
  readonly bytesToReuse: number;
  /** Every artifact of the new set, in manifest order. */
  readonly artifacts: readonly ArtifactPlan[];
  /** Set when `toVersion` failed its health check here: it will not be installed. */
  readonly skipped?: { readonly reason: string };
  /** The release notes signed with `toVersion` (Markdown), when it carries them. */
  readonly notes?: string;
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
