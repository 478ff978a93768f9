/**
 * The Node composition of the updater: node:http fetcher (http-fetcher.ts), file store, lock, real clock and timers,
 * wired into the pure core. The state directory is locked for the updater's lifetime and any
 * commit a crash interrupted is finished before the first call.
 *
 * @example
 * const updater = await createNodeUpdater({ baseUrl, machineKey, pubkeys: [hex], dir });
 * try { await updater.update(); } finally { await updater.close(); }
 */
import { join } from 'node:path';
import type { ChunkPorts } from '#core/chunks/index.js';
import { parseEndpoint } from '#core/transfer/index.js';
import { errnoDetails, UpdateError } from '#core/errors.js';
import type { StepHook } from '#core/install/index.js';
import { resolveLimits, type Limits } from '#core/limits.js';
import { silentLogger, type Clock, type Fetcher, type Logger } from '#core/ports.js';
import { createUpdateLoop, type TufRunPorts } from '#core/schedule/index.js';
import type { UpdaterApi } from '#core/updater-api.js';
import { pinKeys } from '#core/trust/index.js';
import { FileChunkStore } from './blobs/index.js';
import { AnswerFile } from './store/index.js';
import { chooseSwap, type SwapStrategy } from './store/index.js';
import { FileStore } from './store/index.js';
import { createFetchFetcher, type FetchLike } from './http/index.js';
import { createHttpFetcher, type EarlySocket, type HttpFetcher } from './http/index.js';
import { healthConfig, type NodeHealthOption } from './health-option.js';
import { acquireLock, type LockHandle } from './locks/index.js';
import { gcPacer } from '#core/transfer/index.js';
import { systemClock, systemRandom, systemRandomBytes, systemTimers } from './node-ports.js';
import { isDiskFull, prepareStateDir } from './fs/index.js';
import { stateDirPaths, type StateDirPaths } from './store/index.js';
import { withTouchRecord } from './store/index.js';
import { settleTrustedRoot } from './tuf/index.js';

export type { NodeHealthOption } from './health-option.js';

export interface NodeUpdaterOptions {
  /** Base URL of the update service ('' for local-only commands: status, rollback, verify). */
  readonly baseUrl: string;
  readonly machineKey: string;
  /**
   * Pinned node_pubkeys, 64 lowercase hex each; a signature by any one suffices (format 1/2).
   * May be empty when a TUF root is given or already stored.
   */
  readonly pubkeys: readonly string[];
  /**
   * A TUF root (bytes of root.json) to start trust from: stored in DIR/.updater/tuf on the
   * first run; ignored when the stored root is as new (trusted-root.ts). Once a root is stored,
   * every run speaks TUF (docs/PROTOCOL.md §TUF repository, "Client").
   */
  readonly trustedRoot?: Uint8Array;
  /** The TUF client's bound on a timestamp's lifetime, seconds (default 7 days). */
  readonly maxTimestampLifetimeS?: number;
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
   * Bytes appended to a large partial between two early data syncs (early-writeback.ts);
   * default WRITEBACK_EVERY_BYTES. The kill -9 suite sets it small (UPDATER_TEST_WRITEBACK_BYTES).
   */
  readonly writebackEveryBytes?: number;
  /**
   * Send a fresh 16-byte nonce (`?nonce=`) with every manifest request and refuse a freshness
   * statement that does not carry exactly it, and any format 1 answer: NONCE_MISMATCH
   * (docs/PROTOCOL.md §2.7.5). Default false. CLI: `--require-nonce`.
   */
  readonly requireNonce?: boolean;
  /**
   * How the live set is switched (docs/UPDATER.md §2): `symlink` (DIR/current, POSIX default)
   * or `pointer` (DIR/current.json, Windows default; no privilege needed). A DIR written under
   * the other strategy is migrated when opened. `symlink` on Windows is CONFIG_INVALID.
   */
  readonly swap?: SwapStrategy;
  /** The platform the swap strategy is chosen for (default process.platform; tests inject it). */
  readonly platform?: NodeJS.Platform;
  /** Health check of each new set; none by default. */
  readonly health?: NodeHealthOption;
  /**
   * Only reads will be asked (`status`, `verify`): on a full disk, where not even the lock
   * file can be written, the updater opens without it (no writer can commit there either,
   * docs/UPDATER.md §3, A full disk after the swap).
   */
  readonly readOnly?: boolean;
  /**
   * Sends every request through this fetch (the tray app: Electron's net.fetch, so the system
   * proxy and certificate store apply; docs/DESKTOP.md "Network"). Default: node:http(s).
   */
  readonly fetch?: FetchLike;
  /**
   * Trust anchors (PEM) for `https:` with the default fetcher, replacing node's store: a
   * registry behind a private authority, tests. Unset: node's store and NODE_EXTRA_CA_CERTS.
   * With `fetch` it is CONFIG_INVALID (that fetch keeps its own trust).
   */
  readonly ca?: string | readonly string[];
  /** Open the registry's first connection (TLS too) before the lock (docs/UPDATER.md §11.2). */
  readonly preconnect?: boolean;
  /**
   * A TCP connection the CLI's launcher opened to the registry before the updater loaded
   * (src/cli/early-connect.ts): the preconnect goes over it when it is to the base URL's
   * origin; it is closed otherwise.
   */
  readonly earlySocket?: EarlySocket;
}

/** Creates an updater over `options.dir`; throws LOCKED when another process holds it. */
export async function createNodeUpdater(options: NodeUpdaterOptions): Promise<UpdaterApi> {
  const limits = resolveLimits(options.limits);
  const pinned = options.pubkeys.length === 0 ? [] : pinKeys(options.pubkeys);
  // The one place the base URL is parsed: the core receives the Endpoint.
  const endpoint =
    options.baseUrl === '' ? undefined : parseEndpoint(options.baseUrl, options.machineKey);
  if (options.dir === '') throw new UpdateError('CONFIG_INVALID', 'a state directory is required');
  if (options.ca !== undefined && options.fetch !== undefined) {
    // The fetch has its own trust: taking `ca` as if it applied would trust more than asked.
    throw new UpdateError('CONFIG_INVALID', '`ca` applies to the default fetcher, not to `fetch`');
  }
  const paths = stateDirPaths(options.dir);
  chooseSwap(options.swap, options.platform ?? process.platform);
  const health = healthConfig(options.health, paths, options.platform);
  const fetcher = fetcherFor(options, limits);
  const early = options.preconnect === true ? endpoint?.base.href : undefined;
  // An early socket no preconnect takes (a proxied run, a command that fetches nothing) is
  // closed now rather than left for its idle timer.
  if (early !== undefined && fetcher.preconnect !== undefined) {
    fetcher.preconnect(early, options.earlySocket);
  } else {
    options.earlySocket?.adopt()?.destroy();
  }
  await prepareDir(paths);
  const lock = await lockFor(paths, options.readOnly === true, options.logger);
  let store: FileStore;
  let tuf: TufRunPorts | undefined;
  try {
    store = await openStore(options, lock !== NO_LOCK);
    tuf = await tufPortsFor(options, paths, pinned.length > 0);
  } catch (error) {
    await lock.release();
    throw error;
  }
  const loop = createUpdateLoop({
    fetcher,
    // A run that only moves the last-run times writes a small record (state-touch.ts).
    store: withTouchRecord(store, paths),
    clock: options.clock ?? systemClock,
    timers: systemTimers,
    random: systemRandom,
    randomBytes: systemRandomBytes,
    requireNonce: options.requireNonce === true,
    logger: options.logger ?? silentLogger,
    endpoint,
    pinned,
    limits,
    answers: new AnswerFile(paths.meta),
    ...(options.onStep === undefined ? {} : { onStep: options.onStep }),
    chunks: chunkPortsFor(options, paths),
    health,
    tuf,
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

/**
 * The TUF ports when DIR holds (or `trustedRoot` brings) a trusted root; else undefined, and
 * then pinned keys are required (CONFIG_INVALID).
 */
async function tufPortsFor(
  options: NodeUpdaterOptions,
  paths: StateDirPaths,
  pinned: boolean,
): Promise<TufRunPorts | undefined> {
  const { store, outcome } = await settleTrustedRoot(paths.meta, options.trustedRoot);
  if (outcome === 'ignored') {
    options.logger?.info(
      'the given trusted root is not newer than the stored one: kept the stored',
    );
  }
  if (outcome === 'none') {
    if (!pinned)
      throw new UpdateError('CONFIG_INVALID', 'a trusted root or a pinned key is required');
    return undefined;
  }
  const lifetime = options.maxTimestampLifetimeS;
  return { store, config: lifetime === undefined ? {} : { maxTimestampLifetimeS: lifetime } };
}

/** What a read-only use on a full disk holds instead of the lock: nothing to release. */
const NO_LOCK: LockHandle = { release: () => Promise.resolve() };

/** The state directory's lock; for a read-only use on a full disk, none (see `readOnly`). */
async function lockFor(
  paths: StateDirPaths,
  readOnly: boolean,
  logger: Logger | undefined,
): Promise<LockHandle> {
  try {
    return await acquireLock(paths.lock);
  } catch (error) {
    if (!readOnly || !isDiskFull(error)) throw error;
    logger?.warn('the disk is full: reading without the lock', { path: paths.lock });
    return NO_LOCK;
  }
}

/** Creates DIR/.updater; IO (naming the directory) when that fails. */
async function prepareDir(paths: StateDirPaths): Promise<void> {
  try {
    // Before the lock is written: no entry of DIR/.updater may be a link (safe-fs.ts).
    await prepareStateDir(paths);
  } catch (cause) {
    if (cause instanceof UpdateError) throw cause;
    throw new UpdateError('IO', `cannot create the state directory ${paths.meta}`, {
      cause,
      details: errnoDetails(cause) ?? { path: paths.meta },
    });
  }
}

/**
 * Opens the file store. With the lock held, recovery of an interrupted commit runs here;
 * without it (a read on a full disk) the store writes nothing (file-store.ts `locked`).
 */
function openStore(options: NodeUpdaterOptions, locked: boolean): Promise<FileStore> {
  const collect = options.collectGarbage;
  return FileStore.open(options.dir, {
    locked,
    onStep: options.onStep,
    onWritten: collect === undefined ? undefined : gcPacer(collect),
    writebackEveryBytes: options.writebackEveryBytes,
    swap: options.swap,
    platform: options.platform,
    logger: options.logger,
  });
}

/** The node:http(s) fetcher, or the given fetch behind the fetch fetcher. */
function fetcherFor(options: NodeUpdaterOptions, limits: Limits): Fetcher & Partial<HttpFetcher> {
  if (options.fetch === undefined) {
    return createHttpFetcher({
      connectTimeoutMs: limits.connectTimeoutMs,
      pipelineConnections: limits.parallel,
      ...(options.ca === undefined ? {} : { ca: options.ca }),
    });
  }
  return createFetchFetcher({
    fetch: options.fetch,
    // Connect (through a proxy too), then the same idle rule the body has.
    headersTimeoutMs: limits.connectTimeoutMs + limits.stallTimeoutMs,
  });
}

/** The chunk delta ports over the state directory's blobs (docs/UPDATER.md §9). */
function chunkPortsFor(options: NodeUpdaterOptions, paths: StateDirPaths): ChunkPorts {
  return {
    store: new FileChunkStore({
      blobDir: paths.blobs,
      partialDir: paths.partial,
      cacheDir: join(paths.meta, 'chunks'),
      ...(options.collectGarbage === undefined ? {} : { onRead: gcPacer(options.collectGarbage) }),
    }),
    ...(options.collectGarbage === undefined ? {} : { collectGarbage: options.collectGarbage }),
  };
}
