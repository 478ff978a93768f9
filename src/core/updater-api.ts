/**
 * The public face of the updater, shared by the CLI and the desktop app. The implementation
 * (update-loop.ts) and the Node wiring (src/node/create-updater.ts) satisfy this contract.
 */
import type { UpdateErrorCode } from './errors.js';
import type { PlanSummary, UpdateListener } from './events.js';
import type { ConfirmResult } from './health/index.js';
import type { HealthMode } from './health/index.js';

export type { ConfirmResult } from './health/index.js';

export interface UpdaterStatus {
  /** registry_version of the installed set, or null before the first install. */
  readonly installedVersion: string | null;
  /** Highest registry_version ever accepted (rollback floor). */
  readonly highestAcceptedVersion: string | null;
  readonly lastCheckAtMs: number | null;
  readonly lastSuccessAtMs: number | null;
  readonly lastError: { readonly code: UpdateErrorCode; readonly message: string } | null;
  /** True while a run is in flight. */
  readonly running: boolean;
  /** A previous set is kept and `rollback()` can restore it. */
  readonly canRollBack: boolean;
  /** The installed set awaiting its health verdict (docs/UPDATER.md §3), or null. */
  readonly probation: {
    readonly version: string;
    readonly mode: HealthMode;
    readonly startedAtMs: number;
    /** confirm mode: reverted at the first run after this time unless confirmed. */
    readonly deadlineAtMs: number | null;
  } | null;
  /** Versions that failed their health check here; check and update skip them. */
  readonly badVersions: readonly {
    readonly version: string;
    readonly reason: string;
    readonly atMs: number;
  }[];
}

export interface UpdateResult {
  /** `skipped`: the offered version failed its health check here before (see `skipped`). */
  readonly outcome: 'up-to-date' | 'applied' | 'skipped';
  readonly version: string | null;
  readonly plan: PlanSummary | null;
  /** Bytes actually received from the network in this run. */
  readonly bytesDownloaded: number;
  /**
   * Set when the installed set was up to date on paper but failed the cheap check (missing,
   * resized or written files): their names; the set was re-staged and committed atomically.
   */
  readonly repaired?: readonly string[];
  /** outcome `skipped`: the version offered and why it is not installed. */
  readonly skipped?: { readonly version: string; readonly reason: string };
  /** confirm mode: the set applied is on probation until confirm() (or reverted after this). */
  readonly probation?: { readonly deadlineAtMs: number };
}

export interface VerifyReport {
  readonly version: string | null;
  readonly ok: boolean;
  readonly drift: readonly {
    readonly name: string;
    readonly problem: 'missing' | 'modified' | 'unexpected';
  }[];
}

export interface UpdaterApi {
  /** Fetches and verifies the manifest and returns the plan, downloading nothing. */
  check(): Promise<PlanSummary>;
  /** check -> verify -> plan -> pull -> commit. A second call joins the run in flight. */
  update(): Promise<UpdateResult>;
  status(): Promise<UpdaterStatus>;
  /** Restores the previous installed set. */
  rollback(): Promise<{ readonly version: string | null }>;
  /** Re-hashes the installed set against the last accepted signed manifest. */
  verify(): Promise<VerifyReport>;
  /**
   * The consuming software says the installed set works (health mode `confirm`): ends its
   * probation. `confirmed: false` when nothing was on probation (safe to call at every start).
   */
  confirm(): Promise<ConfirmResult>;
  /** Subscribes to events; returns the unsubscribe function. */
  on(listener: UpdateListener): () => void;
  /** Aborts a run in flight and releases the state-directory lock. */
  close(): Promise<void>;
}
