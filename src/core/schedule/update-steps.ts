/**
 * The steps of one update run after accept (accept-step.ts), as named functions over one run
 * context: pull and commit, repair, install, and the failure record. The order is the
 * type-enforced pipeline of docs/ARCHITECTURE.md; update-loop.ts runs them one at a time.
 */
import { accept, type Accepted, type Admitted } from './accept-step.js';
import { chunkedPuller, planPull, type PullPlan } from '../chunks/index.js';
import { keepWholeTrees } from '../chunks/index.js';
import { UpdateError } from '../errors.js';
import type { PlanSummary } from '../events.js';
import { badReason, judgeNewSet, probationFor } from '../health/index.js';
import type { LocalStore, Logger } from '../ports.js';
import { missingBlobs } from '../transfer/index.js';
import { pullWithPacks } from '../packs/index.js';
import { repairDir, repairPlan } from '../plan/index.js';
import { pullWhileRecording } from './record-gate.js';
import { nowOf, type RunContext } from './run-context.js';
import type { InstalledSet, UpdaterState } from '../state.js';
import type { UpdateResult } from '../updater-api.js';
import type { VerifiedManifest } from '../trust/index.js';

/** Progress events are emitted at most this often (plus the final one of each artifact). */
const PROGRESS_EVERY_MS = 100;

/** What the pull of an accepted manifest will do, each artifact's method and bytes told. */
function planPullOf(run: RunContext, accepted: Accepted): Promise<PullPlan> {
  const { verified, plan, state, missing } = accepted;
  return planPull(run, plan.summary, verified.manifest.artifacts, state, missing);
}

/** The dry run: accept, then tell what an update would do (chunk indexes may be fetched). */
export async function checkForUpdate(run: RunContext): Promise<PlanSummary> {
  const accepted = await accept(run);
  const { plan, state } = accepted;
  const atMs = nowOf(run);
  const version = plan.summary.toVersion;
  const reason = plan.upToDate ? undefined : badReason(state, version);
  if (reason !== undefined) {
    run.emit({ type: 'version-skipped', version, reason, atMs });
    return { ...plan.summary, skipped: { reason } };
  }
  if (plan.upToDate) {
    run.emit({ type: 'up-to-date', version, atMs });
    return plan.summary;
  }
  const { summary } = await planPullOf(run, accepted);
  run.emit({ type: 'update-available', plan: summary, atMs });
  return summary;
}

/**
 * Pulls what the blob store lacks (pull.ts: the store decides, not the plan) and commits the
 * set. `repair`: the installed set itself is re-staged under a fresh directory (the damaged
 * one is not a rollback target). Resolves to the bytes received from the network.
 */
export async function pullAndCommit(
  run: RunContext,
  { verified, state }: Accepted,
  repair = false,
  planned?: PullPlan,
): Promise<number> {
  const todo = planned?.todo ?? (await missingBlobs(run.store, verified.manifest.artifacts));
  let lastEmit = Number.NEGATIVE_INFINITY;
  const onProgress = (bytes: number, total: number, artifact: string, received: number): void => {
    const t = nowOf(run);
    if (t - lastEmit < PROGRESS_EVERY_MS && bytes !== total) return;
    lastEmit = t;
    run.emit({ type: 'progress', bytes, total, artifact, received });
  };
  const dir = repair ? repairDir(verified.setId, nowOf(run)) : undefined;
  const set: InstalledSet = {
    setId: verified.setId,
    ...(dir === undefined ? {} : { dir }),
    version: verified.manifest.registry_version,
    artifacts: verified.manifest.artifacts.map(({ name, size, sha256 }) => ({
      name,
      size,
      sha256,
    })),
  };
  // Known before the first byte: the store may stage each blob as it arrives (docs/UPDATER.md
  // §3, Staging during the pull); the commit below stays the one that makes anything live.
  // Not awaited before the pull: it writes, so it waits on the acceptance's record like every
  // write (record-gate.ts), and the pull's first requests must not wait with it. A blob
  // promoted before the tree is made is linked by the commit; a failure is thrown before it.
  const staging = run.store.expectSet?.({ ...set, envelope: verified.envelope });
  staging?.catch(() => undefined);
  const other = planned === undefined ? undefined : chunkedPuller(run, planned.chunked);
  const downloaded =
    (await pullWithPacks(run, todo, onProgress, other)) + (planned?.planningBytes ?? 0);
  const next: UpdaterState = {
    ...state,
    installed: set,
    previous: repair ? state.previous : (state.installed ?? state.previous),
    lastSuccessAtMs: nowOf(run),
    lastError: null,
    // On probation from the very commit that makes it live: no crash can skip the check. A
    // repair keeps the setId, so its probation (if any) carries on.
    health: repair
      ? state.health
      : { ...state.health, probation: probationFor(run.health.config, set, nowOf(run)) },
  };
  await staging;
  await run.store.commitSet({ ...set, envelope: verified.envelope }, next);
  // After the commit, so a slow index never delays it (docs/UPDATER.md §9.1).
  const chunked = new Set(planned?.chunked.keys());
  return downloaded + (await keepWholeTrees(run, todo, chunked));
}

/** Re-stages the installed set from blobs, re-fetching what is missing (docs/UPDATER.md §3). */
export async function repairInstalled(
  run: RunContext,
  accepted: Accepted,
  installed: InstalledSet,
  damaged: readonly string[],
): Promise<UpdateResult> {
  run.logger.warn('installed set damaged, repairing', { names: damaged.slice(0, 20) });
  const summary = repairPlan(installed, damaged, accepted.verified);
  run.emit({ type: 'update-available', plan: summary, atMs: nowOf(run) });
  const bytesDownloaded = await pullAndCommit(run, accepted, true);
  run.emit({
    type: 'applied',
    version: installed.version,
    previousVersion: installed.version,
    atMs: nowOf(run),
  });
  return {
    outcome: 'applied',
    version: installed.version,
    plan: summary,
    bytesDownloaded,
    repaired: damaged,
  };
}

/**
 * After admit: up to date (after a cheap check of the files), a repair, or a new set. Only a
 * new set's pull overlaps the acceptance's record (record-gate.ts); every other path writes
 * it first.
 */
export async function install(run: RunContext, admitted: Admitted): Promise<UpdateResult> {
  const { record, ...accepted } = admitted;
  const { verified, plan, state } = accepted;
  if (plan.upToDate || badReason(state, verified.manifest.registry_version) !== undefined) {
    await record();
    return keepInstalled(run, accepted);
  }
  const { planned, bytesDownloaded } = await pullWhileRecording(run, record, async (gated) => {
    const pullPlan = await planPullOf(gated, accepted);
    gated.emit({ type: 'update-available', plan: pullPlan.summary, atMs: nowOf(gated) });
    return {
      planned: pullPlan,
      bytesDownloaded: await pullAndCommit(gated, accepted, false, pullPlan),
    };
  });
  return applied(run, accepted, planned.summary, bytesDownloaded);
}

/** Up to date, a repair of the installed set, or a version its health check reverted. */
async function keepInstalled(run: RunContext, accepted: Accepted): Promise<UpdateResult> {
  const { verified, plan, state } = accepted;
  // Up to date on paper: check the files are still there (one lstat each, no hashing).
  const installed = plan.upToDate ? state.installed : null;
  const damaged = installed === null ? [] : await run.store.checkInstalled(installed.artifacts);
  if (installed !== null && damaged.length > 0) {
    return repairInstalled(run, accepted, installed, damaged);
  }
  const reason = plan.upToDate ? undefined : badReason(state, verified.manifest.registry_version);
  if (reason !== undefined) {
    // A version reverted by its health check is never installed again; a newer one is.
    const version = verified.manifest.registry_version;
    await run.store.saveState({ ...state, lastSuccessAtMs: nowOf(run), lastError: null });
    run.emit({ type: 'version-skipped', version, reason, atMs: nowOf(run) });
    return {
      outcome: 'skipped',
      version,
      plan: { ...plan.summary, skipped: { reason } },
      bytesDownloaded: 0,
      skipped: { version, reason },
    };
  }
  // Only an up-to-date plan or a skipped version comes here (install).
  await refreshEnvelope(run.store, verified);
  await run.store.saveState({ ...state, lastSuccessAtMs: nowOf(run), lastError: null });
  run.emit({ type: 'up-to-date', version: plan.summary.toVersion, atMs: nowOf(run) });
  return {
    outcome: 'up-to-date',
    version: plan.summary.toVersion,
    plan: plan.summary,
    bytesDownloaded: 0,
  };
}

/** A new set was committed: its health check judges it (docs/UPDATER.md §3, Health check). */
async function applied(
  run: RunContext,
  { verified, state }: Accepted,
  summary: PlanSummary,
  bytesDownloaded: number,
): Promise<UpdateResult> {
  const version = verified.manifest.registry_version;
  run.emit({
    type: 'applied',
    version,
    previousVersion: state.installed?.version ?? null,
    atMs: nowOf(run),
  });
  const judged = await judgeNewSet(run.health);
  if (judged.kind === 'reverted') {
    const restored = judged.restoredVersion;
    throw new UpdateError(
      'HEALTH_CHECK_FAILED',
      `${version} failed its health check (${judged.reason}); ` +
        (restored === null ? 'there was no previous set to restore' : `${restored} restored`),
    );
  }
  return {
    outcome: 'applied',
    version,
    plan: summary,
    bytesDownloaded,
    ...(judged.kind === 'awaiting' ? { probation: { deadlineAtMs: judged.deadlineAtMs } } : {}),
  };
}

/**
 * Keeps the signed bytes of the installed release current: the same release (same digest) may
 * come back with other signatures, e.g. co-signed by new release keys before a rotation, and
 * `verify` checks them under the newest key set (docs/PROTOCOL.md §2.7.5).
 */
async function refreshEnvelope(store: LocalStore, verified: VerifiedManifest): Promise<void> {
  if (verified.format !== 2) return;
  const stored = await store.loadEnvelope(verified.setId);
  if (stored !== undefined && Buffer.from(stored).equals(verified.envelope)) return;
  await store.saveEnvelope(verified.setId, verified.envelope);
}

/** Records a failed run as last_error (never for a state it could not read or own). */
export async function recordFailure(
  store: LocalStore,
  logger: Logger,
  error: UpdateError,
  nowMs: number,
): Promise<void> {
  if (error.code === 'STATE_CORRUPT' || error.code === 'LOCKED' || error.code === 'ABORTED') {
    return;
  }
  try {
    const state = await store.loadState();
    await store.saveState({
      ...state,
      lastCheckAtMs: nowMs,
      lastError: { code: error.code, message: error.message },
    });
  } catch (secondary) {
    logger.warn('could not record the error', { error: String(secondary) });
  }
}
