/**
 * The durable steps of pull + commit, in order. The crash tests kill the process right after
 * each one (env UPDATER_TEST_CRASH_AT) and check the next run ends with the old set or the
 * complete new set (docs/UPDATER.md §Commit protocol).
 */
export const INSTALL_STEPS = [
  /** The accepted-manifest record (highest version, payload digest) is on disk. */
  'accepted-recorded',
  /** A chunk of an artifact was written to its partial file. */
  'partial-written',
  /** A verified partial was renamed into the blob store. */
  'blob-promoted',
  /**
   * A batch of small blobs is durable (one syncfs of the blob directory's file system, Linux ≥
   * 5.8), none of them renamed yet: their sealed partials wait in partial/ (seal-batches.ts);
   * their renames (`blob-promoted` again) follow.
   */
  'blobs-batch-synced',
  /**
   * Every blob of the pull is promoted (data fsynced, renamed): small ones finish behind the
   * downloads, and the pull waits for them here (once per pull).
   */
  'blobs-settled',
  /** The blob directory is synced: every rename of the batch is durable (once per commit). */
  'blobs-synced',
  /** The complete new tree is staged under sets/ (fsynced, renamed into place). */
  'set-staged',
  /** The commit journal (the intent: target set and the state to write) is on disk. */
  'journal-written',
  /** DIR/current now points at the new set (rename(2) of a symlink). */
  'current-swapped',
  /** The state file names the new set as installed. */
  'state-written',
  /** The journal is removed: the commit is complete. */
  'journal-removed',
  /** Unreferenced sets, blobs and stale partials are removed. */
  'gc-done',
] as const;

export type InstallStep = (typeof INSTALL_STEPS)[number];

/**
 * The durable steps of a health check and its revert (docs/UPDATER.md §3, Health check), after
 * the install steps. The revert's own switch reports journal-written, current-swapped,
 * state-written and journal-removed again (a crash test names the second with `step@2`).
 */
export const HEALTH_STEPS = [
  /** The set just committed is on probation and its check is about to run. */
  'health-check-started',
  /** A failed verdict is on disk: from here a crash reverts at the next run, unchecked. */
  'health-verdict-recorded',
  /** The version is marked bad in the audit log (the revert's switch follows). */
  'health-bad-audited',
  /** The previous set is live again and the version recorded bad. */
  'health-reverted',
] as const;

export type HealthStep = (typeof HEALTH_STEPS)[number];

/** Called synchronously right after a step is durable (tests kill the process here). */
export type StepHook = (step: InstallStep | HealthStep) => void;

export function isInstallStep(value: string): value is InstallStep {
  return (INSTALL_STEPS as readonly string[]).includes(value);
}

export function isStep(value: string): value is InstallStep | HealthStep {
  return isInstallStep(value) || (HEALTH_STEPS as readonly string[]).includes(value);
}
