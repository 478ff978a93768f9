/**
 * What the window is told about the updater (docs/DESKTOP.md §Bridge): the status shapes that
 * cross the bridge, built by src/app/status/status-model.ts and shown by the renderer. Their
 * own file beside the operation table of ipc-contract.ts, which re-exports them.
 */
export type UpdatePhase = 'idle' | 'checking' | 'downloading' | 'applying';

/**
 * The one current state of the card (docs/DESKTOP.md "Updates"): exactly one holds, and each
 * transition clears what no longer holds (src/app/status/status-machine.ts).
 */
export type StatusState =
  | 'idle'
  | 'checking'
  | 'available'
  | 'downloading'
  | 'verifying'
  | 'installing'
  | 'probation'
  | 'up-to-date'
  | 'rolled-back'
  | 'paused'
  | 'failed';

/**
 * The card's result line: what the last finished step did, in neutral or good words. It
 * belongs to the state it was written in and is cleared by the next one.
 */
export interface StatusNotice {
  readonly kind:
    'installed' | 'updated' | 'rolled-back' | 'reverted' | 'cancelled' | 'up-to-date' | 'skipped';
  readonly words: string;
}

/** A download that stopped on a failure: what it was for and what is kept for resume. */
export interface KeptDownload {
  readonly targetVersion: string | null;
  readonly keptBytes: number;
  readonly total: number;
}

/** A version offered but not installed yet (policy "ask first" or "only notify"). */
export interface OfferView {
  readonly version: string;
  /** Bytes to download (after reuse). */
  readonly downloadBytes: number;
  /** Release notes as plain text; null when the signed metadata carries none. */
  readonly notes: string | null;
}

/**
 * What kind of trouble an error is, so the window can show each differently: a refusal of
 * signed data (`security`) is never weather; network trouble retries on its own
 * (docs/DESKTOP.md "Updates").
 */
export type ErrorKind = 'security' | 'network' | 'access' | 'settings' | 'local' | 'cancelled';

/** An error as the window and the notifications show it (src/app/status/refusal-words.ts). */
export interface ErrorView {
  /** Stable code (src/core/errors.ts, or BRIDGE for the window's own bridge). */
  readonly code: string;
  /** The core's own message (for the log and support). */
  readonly message: string;
  /** The same in plain words. */
  readonly words: string;
  /** What the user can do about it. */
  readonly advice: string;
  readonly kind: ErrorKind;
}

/** A pull in progress. */
export interface ProgressView {
  /** Bytes verified so far of the run's total. */
  readonly bytes: number;
  readonly total: number;
  /** The version being pulled (null before the plan is known). */
  readonly targetVersion: string | null;
  /** Recent speed; null until enough has arrived to tell. */
  readonly bytesPerSecond: number | null;
  /** Time left at that speed; null when unknown or not yet stable. */
  readonly remainingMs: number | null;
  /** The artifact receiving bytes now. */
  readonly artifact?: string | null;
  /** Bytes taken from what is held (chunk deltas, kept blobs): the download's saving. */
  readonly savedBytes?: number;
  /** The download fetches only changed chunks (docs/UPDATER.md §9). */
  readonly changesOnly?: boolean;
}

/** What the window shows about the updater; built by src/app/status/status-model.ts. */
export interface AppStatus {
  /** "Demo registry" or the configured registry's host. */
  readonly registryLabel: string;
  readonly installedVersion: string | null;
  /** Coarse phase kept for the tray menu; `state` is the card's truth. */
  readonly phase: UpdatePhase;
  readonly state: StatusState;
  /** The version the current state is about (the one downloading, offered, failed, on probation). */
  readonly targetVersion: string | null;
  /** The state in plain words (src/app/status/status-words.ts). */
  readonly headline: string;
  /** The result line of the last finished step; null once a newer state began. */
  readonly notice: StatusNotice | null;
  /** Set only in state 'failed' when a download stopped part-way. */
  readonly kept: KeptDownload | null;
  /** Set only in state 'available'. */
  readonly offer: OfferView | null;
  /** A version the user left by rolling back: not installed until a newer one appears. */
  readonly skippedVersion: string | null;
  readonly progress: ProgressView | null;
  readonly lastCheckAtMs: number | null;
  readonly nextCheckAtMs: number | null;
  readonly paused: boolean;
  /** Set only in state 'failed'. */
  readonly lastError: ErrorView | null;
  /** The last update this session applied ("Updated from 1.0.0 to 1.1.0 at 14:02"). */
  readonly lastUpdate: {
    readonly kind?: 'install' | 'update' | 'rollback';
    readonly fromVersion: string | null;
    readonly toVersion: string;
    readonly atMs: number;
  } | null;
  /** A previous set is kept and Roll back can restore it. */
  readonly canRollBack: boolean;
}
