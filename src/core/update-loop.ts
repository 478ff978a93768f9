/**
 * The updater pipeline: check -> verify -> policy -> plan -> pull -> commit, as short named
 * steps. Runs are serialised; a second update() (or check()) while one is in flight joins it
 * (electron-updater's checkForUpdates model). Everything outside is a port.
 */
import { UpdateError } from './errors.js';
import type { PlanSummary, UpdateEvent, UpdateListener } from './events.js';
import { fetchManifest } from './fetch-manifest.js';
import type { HttpContext } from './http-get.js';
import type { StepHook } from './install-steps.js';
import type { Limits } from './limits.js';
import { planUpdate, type Plan } from './plan.js';
import { checkPolicy, recordAcceptance } from './policy.js';
import type { Clock, Fetcher, LocalStore, Logger, Random, Timers } from './ports.js';
import { missingBlobs, pullBlobs } from './pull.js';
import { repairDir, repairPlan } from './repair.js';
import { createRunQueue } from './run-queue.js';
import { toUpdateError, withRetries } from './retry.js';
import { setDir, type InstalledSet, type UpdaterState } from './state.js';
import type { UpdateResult, UpdaterApi, UpdaterStatus, VerifyReport } from './updater-api.js';
import { verifyManifest, type PinnedKey, type VerifiedManifest } from './verify.js';
import { verifyInstalled } from './verify-installed.js';

export interface UpdateLoopDeps {
  readonly fetcher: Fetcher;
  readonly store: LocalStore;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly random: Random;
  readonly logger: Logger;
  /** Base URL of the update service; '' when only local commands are used. */
  readonly baseUrl: string;
  readonly machineKey: string;
  readonly pinned: readonly PinnedKey[];
  readonly limits: Limits;
  readonly onStep?: StepHook;
  readonly userAgent?: string;
}

/** Progress events are emitted at most this often (plus the final one of each artifact). */
const PROGRESS_EVERY_MS = 100;

/** Builds the updater over its ports. `close()` aborts a run in flight. */
export function createUpdateLoop(deps: UpdateLoopDeps): UpdaterApi {
  const listeners = new Set<UpdateListener>();
  const controller = new AbortController();
  const runs = createRunQueue(controller.signal);

  const emit = (event: UpdateEvent): void => {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (error) {
        deps.logger.warn('listener threw', { error: String(error) });
      }
    }
  };
  const now = (): number => deps.clock.nowMs();

  const baseUrl = (): URL => {
    let url: URL;
    try {
      url = new URL(deps.baseUrl.endsWith('/') ? deps.baseUrl : `${deps.baseUrl}/`);
    } catch (cause) {
      throw new UpdateError('CONFIG_INVALID', 'base URL is not a valid URL', { cause });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new UpdateError('CONFIG_INVALID', 'base URL must be http or https');
    }
    if (deps.machineKey === '') throw new UpdateError('CONFIG_INVALID', 'machine key is required');
    return url;
  };

  const http = (base: URL): HttpContext => ({
    fetcher: deps.fetcher,
    clock: deps.clock,
    timers: deps.timers,
    limits: deps.limits,
    trustedOrigin: base.origin,
    machineKey: deps.machineKey,
    userAgent: deps.userAgent ?? 'verified-updater',
  });

  /** Fetch, verify, apply policy and persist the acceptance. */
  const accept = async (
    base: URL,
  ): Promise<{ vm: VerifiedManifest; plan: Plan; state: UpdaterState }> => {
    const ctx = http(base);
    const bytes = await withRetries(
      { limits: deps.limits, timers: deps.timers, random: deps.random, signal: controller.signal },
      () => fetchManifest(ctx, base, controller.signal),
    );
    const vm = verifyManifest(bytes, deps.pinned, deps.limits.maxManifestBytes);
    const loaded = await deps.store.loadState();
    checkPolicy(vm, loaded, now(), deps.limits, base.href);
    const plan = planUpdate(loaded.installed, vm);
    const state = { ...recordAcceptance(loaded, vm), lastCheckAtMs: now() };
    // Audit first: a crash in between repeats an entry rather than losing one.
    if (loaded.acceptedDigests[vm.manifest.registry_version] === undefined) {
      await deps.store.appendAudit({
        version: vm.manifest.registry_version,
        payloadSha256: vm.payloadSha256,
        keyid: vm.keyid,
        atMs: now(),
      });
    }
    await deps.store.saveState(state);
    deps.onStep?.('accepted-recorded');
    return { vm, plan, state };
  };

  /**
   * Pulls what the store lacks and commits the set. `repair`: the installed set itself is
   * re-staged under a fresh directory (the damaged one is not a rollback target).
   */
  const pullAndCommit = async (
    base: URL,
    vm: VerifiedManifest,
    state: UpdaterState,
    repair = false,
  ): Promise<number> => {
    const todo = await missingBlobs(deps.store, vm.manifest.artifacts);
    let lastEmit = Number.NEGATIVE_INFINITY;
    const downloaded = await pullBlobs(
      {
        http: http(base),
        store: deps.store,
        random: deps.random,
        logger: deps.logger,
        baseUrl: base,
        signal: controller.signal,
      },
      todo,
      (bytes, total, artifact) => {
        const t = now();
        if (t - lastEmit < PROGRESS_EVERY_MS && bytes !== total) return;
        lastEmit = t;
        emit({ type: 'progress', bytes, total, artifact });
      },
    );
    const dir = repair ? repairDir(vm.payloadSha256, now()) : undefined;
    const set: InstalledSet = {
      setId: vm.payloadSha256,
      ...(dir === undefined ? {} : { dir }),
      version: vm.manifest.registry_version,
      artifacts: vm.manifest.artifacts.map(({ name, size, sha256 }) => ({ name, size, sha256 })),
    };
    const next: UpdaterState = {
      ...state,
      installed: set,
      previous: repair ? state.previous : (state.installed ?? state.previous),
      lastSuccessAtMs: now(),
      lastError: null,
    };
    await deps.store.commitSet({ ...set, envelope: vm.envelope }, next);
    return downloaded;
  };

  const recordFailure = async (error: UpdateError): Promise<void> => {
    if (error.code === 'STATE_CORRUPT' || error.code === 'LOCKED' || error.code === 'ABORTED') {
      return;
    }
    try {
      const state = await deps.store.loadState();
      await deps.store.saveState({
        ...state,
        lastCheckAtMs: now(),
        lastError: { code: error.code, message: error.message },
      });
    } catch (secondary) {
      deps.logger.warn('could not record the error', { error: String(secondary) });
    }
  };

  const guarded = async <T>(run: () => Promise<T>): Promise<T> => {
    emit({ type: 'checking', atMs: now() });
    try {
      return await run();
    } catch (thrown) {
      const error = toUpdateError(thrown);
      await recordFailure(error);
      emit({ type: 'error', code: error.code, message: error.message, atMs: now() });
      throw error;
    }
  };

  const check = (): Promise<PlanSummary> =>
    runs.run('check', () =>
      guarded(async () => {
        const { plan } = await accept(baseUrl());
        if (plan.upToDate)
          emit({ type: 'up-to-date', version: plan.summary.toVersion, atMs: now() });
        else emit({ type: 'update-available', plan: plan.summary, atMs: now() });
        return plan.summary;
      }),
    );

  const update = (): Promise<UpdateResult> =>
    runs.run('update', () =>
      guarded(async () => {
        const base = baseUrl();
        const { vm, plan, state } = await accept(base);
        // Up to date on paper: check the files are still there (one lstat each, no hashing).
        const damaged =
          plan.upToDate && state.installed !== null
            ? await deps.store.checkInstalled(state.installed.artifacts)
            : [];
        if (damaged.length > 0 && state.installed !== null) {
          return await repair(base, vm, state, state.installed, damaged);
        }
        if (plan.upToDate) {
          await deps.store.saveState({ ...state, lastSuccessAtMs: now(), lastError: null });
          emit({ type: 'up-to-date', version: plan.summary.toVersion, atMs: now() });
          return {
            outcome: 'up-to-date',
            version: plan.summary.toVersion,
            plan: plan.summary,
            bytesDownloaded: 0,
          };
        }
        emit({ type: 'update-available', plan: plan.summary, atMs: now() });
        const bytesDownloaded = await pullAndCommit(base, vm, state);
        emit({
          type: 'applied',
          version: vm.manifest.registry_version,
          previousVersion: state.installed?.version ?? null,
          atMs: now(),
        });
        return {
          outcome: 'applied',
          version: vm.manifest.registry_version,
          plan: plan.summary,
          bytesDownloaded,
        };
      }),
    );

  /** Re-stages the installed set from blobs, re-fetching what is missing (docs/UPDATER.md). */
  const repair = async (
    base: URL,
    vm: VerifiedManifest,
    state: UpdaterState,
    installed: InstalledSet,
    damaged: readonly string[],
  ): Promise<UpdateResult> => {
    deps.logger.warn('installed set damaged, repairing', { names: damaged.slice(0, 20) });
    const summary = repairPlan(installed, damaged, vm);
    emit({ type: 'update-available', plan: summary, atMs: now() });
    const bytesDownloaded = await pullAndCommit(base, vm, state, true);
    emit({
      type: 'applied',
      version: installed.version,
      previousVersion: installed.version,
      atMs: now(),
    });
    return {
      outcome: 'applied',
      version: installed.version,
      plan: summary,
      bytesDownloaded,
      repaired: damaged,
    };
  };

  const status = async (): Promise<UpdaterStatus> => {
    const state = await deps.store.loadState();
    return {
      installedVersion: state.installed?.version ?? null,
      highestAcceptedVersion: state.highestAcceptedVersion,
      lastCheckAtMs: state.lastCheckAtMs,
      lastSuccessAtMs: state.lastSuccessAtMs,
      lastError: state.lastError,
      running: runs.running,
      canRollBack: state.previous !== null,
    };
  };

  const rollback = (): Promise<{ version: string | null }> =>
    runs.run('rollback', async () => {
      const state = await deps.store.loadState();
      const target = state.previous;
      if (target === null) throw new UpdateError('NOTHING_TO_ROLL_BACK', 'no previous set kept');
      // The rollback floor stays where it is: rolling back the files is not accepting an old
      // manifest, and the next update() re-applies the newest accepted one.
      await deps.store.switchSet(setDir(target), { ...state, installed: target, previous: null });
      return { version: target.version };
    });

  const verify = (): Promise<VerifyReport> =>
    runs.run('verify', async () => verifyInstalled(deps.store, deps.pinned, deps.limits));

  return {
    check,
    update,
    status,
    rollback,
    verify,
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      controller.abort();
      await runs.drained();
    },
  };
}
