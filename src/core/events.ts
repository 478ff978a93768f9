/**
 * Typed events of one update run, in the order they can occur:
 * checking -> (up-to-date | update-available -> progress* -> applied) | error.
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
