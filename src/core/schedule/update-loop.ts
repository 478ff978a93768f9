/**
 * The updater pipeline: check -> verify -> policy -> plan -> pull -> commit, whose steps are
 * the named functions of accept-step.ts and update-steps.ts. Runs are serialised; a second
 * update() (or check()) while one is in flight joins it (electron-updater's checkForUpdates
 * model). Everything outside is a port.
 */
import type { ChunkPorts } from '../chunks/index.js';
import type { AnswerCache } from '../trust/index.js';
import { requireEndpoint, type Endpoint } from '../transfer/index.js';
import { toUpdateError, UpdateError } from '../errors.js';
import type { UpdateEvent, UpdateListener } from '../events.js';
import {
  confirmInstalled,
  settleProbation,
  type HealthConfig,
  type HealthContext,
} from '../health/index.js';
import type { StepHook } from '../install/index.js';
import type { Limits } from '../limits.js';
import type { Clock, Fetcher, LocalStore, Logger, Random, RandomBytes, Timers } from '../ports.js';
import { admit } from './accept-step.js';
import { createRunQueue } from './run-queue.js';
import { memoizeState } from './state-memo.js';
import type { RunContext } from './run-context.js';
import type { TufRunPorts } from './run-context.js';
import { checkForUpdate, install, recordFailure } from './update-steps.js';
import { rollBack, statusOf } from './state-steps.js';
import type { UpdaterApi } from '../updater-api.js';
import type { PinnedKey } from '../trust/index.js';
import { verifyInstalled } from '../trust/index.js';

export interface UpdateLoopDeps {
  readonly fetcher: Fetcher;
  readonly store: LocalStore;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly random: Random;
  readonly logger: Logger;
  /** The update service, parsed once (endpoint.ts); absent when only local commands run. */
  readonly endpoint?: Endpoint | undefined;
  readonly pinned: readonly PinnedKey[];
  readonly limits: Limits;
  /**
   * Send a fresh 16-byte nonce with every manifest request and refuse a freshness statement
   * without exactly it, and any format 1 answer (NONCE_MISMATCH, docs/PROTOCOL.md §2.7.5).
   */
  readonly requireNonce?: boolean;
  /** The CSPRNG the nonce comes from; required with `requireNonce`. */
  readonly randomBytes?: RandomBytes;
  readonly onStep?: StepHook;
  readonly userAgent?: string;
  /** Chunk deltas (docs/UPDATER.md §9); without them every blob is fetched whole. */
  readonly chunks?: ChunkPorts;
  /** Keeps the last manifest answer for conditional requests (answer-cache.ts). */
  readonly answers?: AnswerCache;
  /** Health check of new sets (docs/UPDATER.md §3); none when absent. */
  readonly health?: HealthConfig | undefined;
  /** A trusted TUF root is stored: runs speak TUF (tuf-step.ts). */
  readonly tuf?: TufRunPorts | undefined;
}

/** Without requireNonce no nonce is made; reaching this would be a wiring bug. */
const noRandomBytes: RandomBytes = () => {
  throw new UpdateError('CONFIG_INVALID', 'no randomBytes port');
};

/** Builds the updater over its ports. `close()` aborts a run in flight. */
export function createUpdateLoop(deps: UpdateLoopDeps): UpdaterApi {
  const listeners = new Set<UpdateListener>();
  const controller = new AbortController();
  const runs = createRunQueue(controller.signal);
  const now = (): number => deps.clock.nowMs();
  if (deps.requireNonce === true && deps.randomBytes === undefined) {
    throw new UpdateError('CONFIG_INVALID', 'requireNonce needs a randomBytes port');
  }

  const emit = emitterOf(listeners, deps.logger);
  const healthContext = (store: LocalStore = deps.store): HealthContext =>
    healthContextOf(deps, controller.signal, emit, store);
  /** The one run context (and HTTP context) of a network run, reading the state once. */
  const runContext = (store = memoizeState(deps.store)): RunContext =>
    runContextOf(deps, controller.signal, emit, store);

  /** The one boundary of a network run: whatever was thrown is typed here, once. */
  const guarded = async <T>(body: (run: RunContext) => Promise<T>): Promise<T> => {
    emit({ type: 'checking', atMs: now() });
    try {
      const run = runContext();
      // A probation an earlier run left open (crash, passed deadline) is decided first.
      await settleProbation(run.health);
      return await body(run);
    } catch (thrown) {
      const error = toUpdateError(thrown);
      await recordFailure(deps.store, deps.logger, error, now());
      emit({ type: 'error', code: error.code, message: error.message, atMs: now() });
      throw error;
    }
  };

  return {
    check: () => runs.run('check', () => guarded(checkForUpdate)),
    update: () =>
      runs.run('update', () =>
        // install() writes the state anyway: admit need not write an unchanged acceptance.
        guarded(async (run) => install(run, await admit(run, { deferUnchanged: true }))),
      ),
    status: () => statusOf(deps.store, runs.running),
    rollback: () => runs.run('rollback', () => rollBack(deps.store)),
    verify: () =>
      runs.run('verify', () =>
        verifyInstalled(
          deps.store,
          deps.pinned,
          deps.tuf === undefined
            ? undefined
            : { store: deps.tuf.store, nowMs: now(), config: deps.tuf.config },
        ),
      ),
    confirm: () => runs.run('confirm', () => confirmInstalled(healthContext())),
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

/** Hands an event to every listener; one that throws is logged and the rest still hear it. */
function emitterOf(
  listeners: ReadonlySet<UpdateListener>,
  logger: Logger,
): (event: UpdateEvent) => void {
  return (event) => {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (error) {
        logger.warn('listener threw', { error: String(error) });
      }
    }
  };
}

function healthContextOf(
  deps: UpdateLoopDeps,
  signal: AbortSignal,
  emit: (event: UpdateEvent) => void,
  store: LocalStore,
): HealthContext {
  return {
    store,
    clock: deps.clock,
    timers: deps.timers,
    logger: deps.logger,
    signal,
    emit,
    onStep: deps.onStep,
    config: deps.health,
  };
}

function runContextOf(
  deps: UpdateLoopDeps,
  signal: AbortSignal,
  emit: (event: UpdateEvent) => void,
  store: LocalStore,
): RunContext {
  return {
    http: {
      fetcher: deps.fetcher,
      clock: deps.clock,
      timers: deps.timers,
      limits: deps.limits,
      endpoint: requireEndpoint(deps.endpoint),
      userAgent: deps.userAgent ?? 'verified-updater',
    },
    store,
    random: deps.random,
    logger: deps.logger,
    pinned: deps.pinned,
    limits: deps.limits,
    requireNonce: deps.requireNonce === true,
    randomBytes: deps.randomBytes ?? noRandomBytes,
    signal,
    emit,
    onStep: deps.onStep,
    chunks: deps.chunks,
    answers: deps.answers,
    health: healthContextOf(deps, signal, emit, store),
    tuf: deps.tuf,
  };
}
