/**
 * Health check and automatic revert (docs/UPDATER.md §3, Health check). After a commit the new
 * set is on probation (the record is in the committed state itself, so no crash can skip it):
 * a check runs against it (a HealthProbe: the node adapter spawns a command or calls a
 * function) under a deadline, or the consuming software must call confirm() before a deadline.
 * A failure reverts to the previous set with the same journaled switch as a rollback, records
 * the version as bad (state and audit log) and emits `reverted`; check and update then skip
 * that version. A run that finds a probation an earlier run left open finishes the decision
 * (settleProbation). Pure: the probe, the store and time are ports.
 */
import type { AuditRecord } from '../install/index.js';
import { UpdateError } from '../errors.js';
import type { UpdateEvent } from '../events.js';
import { withBadVersion, type Probation } from '../health-state.js';
import type { StepHook } from '../install/index.js';
import type {
  Clock,
  HealthProbe,
  HealthTarget,
  HealthVerdict,
  LocalStore,
  Logger,
  TimerHandle,
  Timers,
} from '../ports.js';
import { setDir, type InstalledSet, type UpdaterState } from '../state.js';

/** How new sets are judged: a check the updater runs, or the consumer's confirm(). */
export type HealthConfig =
  | { readonly mode: 'check'; readonly probe: HealthProbe; readonly timeoutMs: number }
  | { readonly mode: 'confirm'; readonly timeoutMs: number };

/** Defaults: a smoke test gets a minute; a consumer gets ten minutes to start and confirm. */
export const DEFAULT_HEALTH_TIMEOUT_MS = { check: 60_000, confirm: 600_000 } as const;

/** After a check's deadline, how long the probe gets to stop what it started. */
export const PROBE_GRACE_MS = 5_000;

/** What the health steps work with (a subset of a run's context; no network). */
export interface HealthContext {
  readonly store: LocalStore;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly logger: Logger;
  readonly signal: AbortSignal;
  readonly emit: (event: UpdateEvent) => void;
  readonly onStep?: StepHook | undefined;
  readonly config?: HealthConfig | undefined;
}

/** The outcome of judging a set just committed. */
export type Judgement =
  | { readonly kind: 'none' | 'healthy' }
  | { readonly kind: 'awaiting'; readonly deadlineAtMs: number }
  | { readonly kind: 'reverted'; readonly reason: string; readonly restoredVersion: string | null };

export interface ConfirmResult {
  /** The installed version. */
  readonly version: string | null;
  /** True when it was on probation and is now judged healthy; false when nothing was pending. */
  readonly confirmed: boolean;
}

/** The probation a set about to be committed starts with (null without a health check). */
export function probationFor(
  config: HealthConfig | undefined,
  set: Pick<InstalledSet, 'version' | 'setId'>,
  nowMs: number,
): Probation | null {
  if (config === undefined) return null;
  return {
    version: set.version,
    setId: set.setId,
    mode: config.mode,
    startedAtMs: nowMs,
    deadlineAtMs: config.mode === 'confirm' ? nowMs + config.timeoutMs : null,
  };
}

/** Why `version` is not to be installed, or undefined when it may be. */
export function badReason(state: UpdaterState, version: string): string | undefined {
  const bad = state.health.badVersions[version];
  return bad === undefined ? undefined : `failed its health check: ${bad.reason}`;
}

/** The probation when it is about the installed set; undefined otherwise. */
function pendingOf(state: UpdaterState): Probation | undefined {
  const p = state.health.probation;
  const installed = state.installed;
  if (p === null || installed === null) return undefined;
  return installed.setId === p.setId && installed.version === p.version ? p : undefined;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** Right after a commit: announce the probation, then run the check (check mode). */
export async function judgeNewSet(h: HealthContext): Promise<Judgement> {
  const state = await h.store.loadState();
  const p = pendingOf(state);
  if (p === undefined) return { kind: 'none' };
  h.emit({
    type: 'probation',
    version: p.version,
    mode: p.mode,
    deadlineAtMs: p.deadlineAtMs,
    atMs: h.clock.nowMs(),
  });
  if (p.mode === 'confirm') return { kind: 'awaiting', deadlineAtMs: p.deadlineAtMs ?? 0 };
  if (h.config?.mode !== 'check') return { kind: 'none' };
  return runCheck(h, state, p, h.config);
}

/**
 * At the start of a run: finishes a decision an earlier run left open (a crash during the check
 * or the revert, or a confirmation deadline that passed). A probation about a set no longer
 * installed (rolled back, replaced) is dropped.
 */
export async function settleProbation(h: HealthContext): Promise<void> {
  const state = await h.store.loadState();
  const p = state.health.probation;
  if (p === null) return;
  if (pendingOf(state) === undefined) {
    await h.store.saveState({ ...state, health: { ...state.health, probation: null } });
    return;
  }
  if (p.failed !== undefined) {
    await revert(h, p.failed);
    return;
  }
  if (p.mode === 'confirm') {
    const deadline = p.deadlineAtMs ?? 0;
    if (h.clock.nowMs() >= deadline) {
      await revert(h, `not confirmed within ${seconds(deadline - p.startedAtMs)}`);
    }
    return;
  }
  if (h.config?.mode !== 'check') {
    h.logger.warn('a set is on probation but no health check is configured to finish it', {
      version: p.version,
    });
    return;
  }
  h.emit({
    type: 'probation',
    version: p.version,
    mode: 'check',
    deadlineAtMs: null,
    atMs: h.clock.nowMs(),
  });
  await runCheck(h, state, p, h.config);
}

/** confirm(): the consuming software says the installed set works. */
export async function confirmInstalled(h: HealthContext): Promise<ConfirmResult> {
  const state = await h.store.loadState();
  const version = state.installed?.version ?? null;
  const p = pendingOf(state);
  if (p === undefined) {
    if (state.health.probation !== null) await settleProbation(h);
    return { version, confirmed: false };
  }
  if (p.failed !== undefined) {
    // The verdict is on disk already: the revert it started is finished, not undone.
    await revert(h, p.failed);
    throw new UpdateError('HEALTH_CHECK_FAILED', `${p.version} already failed: ${p.failed}`);
  }
  await h.store.saveState({ ...state, health: { ...state.health, probation: null } });
  h.emit({ type: 'healthy', version: p.version, atMs: h.clock.nowMs() });
  return { version, confirmed: true };
}

async function runCheck(
  h: HealthContext,
  state: UpdaterState,
  p: Probation,
  config: Extract<HealthConfig, { mode: 'check' }>,
): Promise<Judgement> {
  const installed = state.installed as InstalledSet;
  h.onStep?.('health-check-started');
  const target = { version: p.version, setId: p.setId, dir: setDir(installed) };
  const verdict = await probeWithDeadline(h, config.probe, target, config.timeoutMs);
  if (verdict.ok) {
    const now = await h.store.loadState();
    await h.store.saveState({ ...now, health: { ...now.health, probation: null } });
    h.emit({ type: 'healthy', version: p.version, atMs: h.clock.nowMs() });
    return { kind: 'healthy' };
  }
  h.logger.warn('health check failed, reverting', { version: p.version, reason: verdict.reason });
  const restoredVersion = await revert(h, verdict.reason);
  return { kind: 'reverted', reason: verdict.reason, restoredVersion };
}

/** Runs the probe until `timeoutMs`; then aborts it and gives it PROBE_GRACE_MS to stop. */
async function probeWithDeadline(
  h: HealthContext,
  probe: HealthProbe,
  target: HealthTarget,
  timeoutMs: number,
): Promise<HealthVerdict> {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort();
  h.signal.addEventListener('abort', onAbort, { once: true });
  const handles: TimerHandle[] = [];
  const after = (ms: number, verdict: HealthVerdict): Promise<HealthVerdict> =>
    new Promise((resolve) => handles.push(h.timers.setTimeout(() => resolve(verdict), ms)));
  const checked = probe.check(target, controller.signal).then(
    (verdict) => verdict,
    (error: unknown): HealthVerdict => ({
      ok: false,
      reason: `the check threw: ${error instanceof Error ? error.message : String(error)}`,
    }),
  );
  const timeout: HealthVerdict = { ok: false, reason: `timed out after ${seconds(timeoutMs)}` };
  try {
    const verdict = await Promise.race([checked, after(timeoutMs, timeout)]);
    if (verdict === timeout || h.signal.aborted) {
      controller.abort();
      await Promise.race([checked, after(PROBE_GRACE_MS, timeout)]);
    }
    if (h.signal.aborted) {
      // Closed mid-check: the set stays on probation and the next run checks it again.
      throw new UpdateError('ABORTED', 'updater closed during the health check');
    }
    return verdict;
  } finally {
    for (const handle of handles) h.timers.clearTimeout(handle);
    h.signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Reverts the set on probation: the verdict first (so a crash from here reverts at the next run
 * without checking again), the audit entry, then one journaled switch to the previous set that
 * also records the version bad and ends the probation. Resolves to the version restored (null
 * when there was none to restore: the set stays, recorded bad).
 */
async function revert(h: HealthContext, reason: string): Promise<string | null> {
  let state = await h.store.loadState();
  const p = state.health.probation;
  if (p === null) return state.installed?.version ?? null;
  if (p.failed === undefined) {
    state = { ...state, health: { ...state.health, probation: { ...p, failed: reason } } };
    await h.store.saveState(state);
    h.onStep?.('health-verdict-recorded');
  }
  const atMs = h.clock.nowMs();
  const record: AuditRecord = {
    version: p.version,
    payloadSha256: p.setId,
    keyid: '',
    atMs,
    event: 'marked-bad',
    reason,
  };
  // Audit first (as for an acceptance): a crash in between repeats the entry, never loses it.
  await h.store.appendAudit(record);
  h.onStep?.('health-bad-audited');
  const target = state.previous;
  const message = `${p.version} failed its health check (${reason}); ${
    target === null ? 'no previous set to restore' : `${target.version} restored`
  }`;
  const next: UpdaterState = {
    ...state,
    ...(target === null ? {} : { installed: target, previous: null }),
    health: {
      probation: null,
      badVersions: withBadVersion(state.health.badVersions, p.version, {
        setId: p.setId,
        reason,
        atMs,
      }),
    },
    lastError: { code: 'HEALTH_CHECK_FAILED', message },
  };
  if (target === null) await h.store.saveState(next);
  else await h.store.switchSet(setDir(target), next);
  h.onStep?.('health-reverted');
  h.emit({
    type: 'reverted',
    version: p.version,
    restoredVersion: target?.version ?? null,
    reason,
    atMs,
  });
  return target?.version ?? null;
}
