/**
 * The Node composition of the updater: got fetcher, file store, lock, real clock and timers,
 * wired into the pure core. The state directory is locked for the updater's lifetime and any
 * commit a crash interrupted is finished before the first call.
 *
 * @example
 * const updater = await createNodeUpdater({ baseUrl, machineKey, pubkeys: [hex], dir });
 * try { await updater.update(); } finally { await updater.close(); }
 */
import { mkdir } from 'node:fs/promises';
import { parseEndpoint } from '../core/endpoint.js';
import { UpdateError } from '../core/errors.js';
import type { StepHook } from '../core/install-steps.js';
import { resolveLimits, type Limits } from '../core/limits.js';
import { silentLogger, type Clock, type Logger } from '../core/ports.js';
import { createUpdateLoop } from '../core/update-loop.js';
import type { UpdaterApi } from '../core/updater-api.js';
import { pinKeys } from '../core/verify.js';
import { FileStore } from './file-store.js';
import { createFetchFetcher, type FetchLike } from './fetch-fetcher.js';
import { createGotFetcher } from './got-fetcher.js';
import { acquireLock } from './lock-file.js';
import { gcPacer } from './read-buffer-gc.js';
import { systemClock, systemRandom, systemTimers } from './node-ports.js';
import { stateDirPaths } from './state-dir.js';

export interface NodeUpdaterOptions {
  /** Base URL of the update service ('' for local-only commands: status, rollback, verify). */
  readonly baseUrl: string;
  readonly machineKey: string;
  /** Pinned node_pubkeys, 64 lowercase hex each; a signature by any one suffices. */
  readonly pubkeys: readonly string[];
  /** The state directory; installed files live under DIR/current. */
  readonly dir: string;
  readonly limits?: Partial<Limits>;
  /** Called after each durable install step (crash tests). */
  readonly onStep?: StepHook;
  readonly logger?: Logger;
  /**
   * Wall clock for expiry and freshness (default: the system clock). Injected so the freeze
   * attack (TUF spec §5.4.4: an expired manifest is refused even when it is the one installed)
   * is testable without waiting for real time to pass.
   */
  readonly clock?: Clock;
  /**
   * A cheap GC, called after every GC_EVERY_BYTES written to partial downloads so the read
   * buffers of a large pull are freed promptly (read-buffer-gc.ts; the CLI passes
   * `exposeMinorGc()`). Default: none, V8 paces itself.
   */
  readonly collectGarbage?: () => void;
  /**
   * Sends every request through this fetch (the tray app: Electron's net.fetch, so the system
   * proxy and certificate store apply; docs/DESKTOP.md "Network"). Default: got.
   */
  readonly fetch?: FetchLike;
}

/** Creates an updater over `options.dir`; throws LOCKED when another process holds it. */
export async function createNodeUpdater(options: NodeUpdaterOptions): Promise<UpdaterApi> {
  const limits = resolveLimits(options.limits);
  const pinned = pinKeys(options.pubkeys);
  // The one place the base URL is parsed: the core receives the Endpoint.
  const endpoint =
    options.baseUrl === '' ? undefined : parseEndpoint(options.baseUrl, options.machineKey);
  if (options.dir === '') throw new UpdateError('CONFIG_INVALID', 'a state directory is required');
  const paths = stateDirPaths(options.dir);
  try {
    await mkdir(paths.meta, { recursive: true, mode: 0o700 });
  } catch (cause) {
    throw new UpdateError('IO', 'cannot create the state directory', { cause });
  }
  const lock = await acquireLock(paths.lock);
  let store: FileStore;
  try {
    const collect = options.collectGarbage;
    store = await FileStore.open(options.dir, {
      onStep: options.onStep,
      onWritten: collect === undefined ? undefined : gcPacer(collect),
    });
  } catch (error) {
    await lock.release();
    throw error;
  }
  const loop = createUpdateLoop({
    fetcher:
      options.fetch === undefined
        ? createGotFetcher({ connectTimeoutMs: limits.connectTimeoutMs })
        : createFetchFetcher({
            fetch: options.fetch,
            // Connect (through a proxy too), then the same idle rule the body has.
            headersTimeoutMs: limits.connectTimeoutMs + limits.stallTimeoutMs,
          }),
    store,
    clock: options.clock ?? systemClock,
    timers: systemTimers,
    random: systemRandom,
    logger: options.logger ?? silentLogger,
    endpoint,
    pinned,
    limits,
    ...(options.onStep === undefined ? {} : { onStep: options.onStep }),
  });
  let closed = false;
  return {
    ...loop,
    async close() {
      if (closed) return;
      closed = true;
      await loop.close();
      await lock.release();
    },
  };
}
