/**
 * Builds the Fastify app (no listen): logger, error policy, dev controls and every module, in
 * the order of modules.ts (docs/ARCHITECTURE.md §Server). Tests use it with app.inject();
 * start-server.ts adds the port.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { ServerClock } from '../platform/clock.js';
import { optionsWithConfig, placeNodeKey, seedState } from '../config/apply-config.js';
import { loadConfig, type LoadedConfig } from '../config/load-config.js';
import type { ServerContext } from './context.js';
import { makeDataDir } from '../platform/data-dir.js';
import { Faults } from '../dev/faults.js';
import { RequestLog } from '../dev/request-log.js';
import { clientErrorHandler } from '../http/client-error.js';
import { installErrorHandlers, mapError } from '../http/error-handler.js';
import {
  rawFirstServerFactory,
  type RawHandler,
  type ServerParts,
} from '../http/raw-first-server.js';
import {
  installRateLimits,
  type LimitedRoutes,
  type RateLimitCounters,
  type RateLimits,
} from '../http/rate-limits.js';
import type { GuardCounters } from '#shared/connection-guard.js';
import { NOSNIFF } from '../http/request-guard.js';
import { RouteTable } from '../http/route-table.js';
import { CHECK_ONLY_AJV } from '../http/route-schema.js';
import { sendError } from '../http/send-error.js';
import { createLogger, logEachRequest } from '../platform/logger.js';
import type { ServerModule } from './module.js';
import { createModules, type Modules } from './modules.js';
import { DEFAULT_OPTIONS, type ServerOptions } from './options.js';
import { createRandom } from '../platform/random.js';
import { registerDevRoutes } from '../dev/routes/dev-routes.js';
import { registerHealthz } from '../http/healthz.js';

export interface BuildDeps {
  /** Where pino writes (default stdout). */
  readonly logStream?: DestinationStream;
  /** Base time source of the server clock (default Date.now). */
  readonly now?: () => number;
}

export interface BuiltApp {
  readonly app: FastifyInstance;
  readonly ctx: ServerContext;
  readonly modules: Modules;
  readonly faults: Faults;
  readonly requests: RequestLog;
  readonly clock: ServerClock;
  /** Resets every module, the clock offset, the faults and the request log. */
  reset(): Promise<void>;
  /** The rate limits' and the connection guard's counters (docs/SERVER.md §Rate limits). */
  counters(): ServerCounters;
  /** Called once the server listens, so modules can build absolute URLs. */
  setBaseUrl(url: string): void;
}

/** What the limits counted: beside the dev request log, and on the in-process handle. */
export interface ServerCounters {
  readonly rate_limits: RateLimitCounters | null;
  readonly connections: GuardCounters | null;
}

/** Merges partial options over the defaults. */
export function resolveOptions(options: Partial<ServerOptions>): ServerOptions {
  const merged: Record<string, unknown> = { ...DEFAULT_OPTIONS };
  for (const [key, value] of Object.entries(options)) if (value !== undefined) merged[key] = value;
  return merged as unknown as ServerOptions;
}

/** The parts of the app that exist before the modules (createFrame). */
interface Frame {
  readonly app: FastifyInstance;
  readonly ctx: ServerContext;
  readonly clock: ServerClock;
  readonly faults: Faults;
  readonly requests: RequestLog;
  /** Filled once the modules exist; off with --dev (docs/ARCHITECTURE.md §Server). */
  readonly rawHandlers: RawHandler[];
  readonly parts: ServerParts;
  /** The rate limits once installed (startModules); the dev reset clears them. */
  readonly rateLimits: { current: RateLimits | undefined };
  readonly setBaseUrl: (url: string) => void;
}

/**
 * Builds the app. Without `dataDir` a fresh temporary directory is used and removed on close.
 * @example const { app } = await buildApp({ dev: true, logLevel: 'silent' });
 */
export async function buildApp(
  partial: Partial<ServerOptions> = {},
  deps: BuildDeps = {},
): Promise<BuiltApp> {
  // The config first: a bad one refuses to start before anything is made.
  const config = await loadConfig(partial.config);
  const options = resolveOptions(optionsWithConfig(partial, config.config));
  const { dataDir, ownDir } = await openDataDir(options.dataDir);
  const frame = createFrame(options, config, dataDir, deps);
  const { app, ctx, clock, faults, requests } = frame;
  const list: ServerModule[] = [];
  app.addHook('onClose', async () => {
    for (const m of list) await m.close?.();
    if (ownDir) await rm(dataDir, { recursive: true, force: true });
  });
  let modules: Modules | undefined;
  const reset = async (): Promise<void> => {
    clock.reset();
    faults.clear();
    requests.clear();
    frame.rateLimits.current?.clear();
    for (const m of list) await m.reset();
    if (modules !== undefined) await seedState(config, modules);
  };
  try {
    modules = await startModules(frame, list, reset);
  } catch (error) {
    // A module that cannot start (bad node key, foreign release) must not leak a temp dir.
    await app.close();
    throw error;
  }
  const counters = (): ServerCounters => ({
    rate_limits: frame.rateLimits.current?.counters() ?? null,
    connections: frame.parts.guard?.counters ?? null,
  });
  return {
    ...{ app, ctx, modules, faults, requests, clock, reset, counters },
    setBaseUrl: frame.setBaseUrl,
  };
}

/** Fastify, the clock, faults, request log and the context the modules get. */
function createFrame(
  options: ServerOptions,
  config: LoadedConfig,
  dataDir: string,
  deps: BuildDeps,
): Frame {
  const rawHandlers: RawHandler[] = [];
  const logger = createLogger(options.logLevel, deps.logStream);
  const parts: ServerParts = { guard: undefined };
  const app = createFastify(options, logger, rawHandlers, parts);
  const clock = new ServerClock(deps.now);
  const faults = new Faults();
  const requests = new RequestLog(clock);
  if (options.dev) {
    faults.install(app);
    requests.install(app);
  }
  logEachRequest(app, logger);
  let baseUrl = '';
  const ctx: ServerContext = {
    options: { ...options, dataDir },
    config,
    clock,
    random: createRandom(options.seed),
    dataDir,
    log: app.log,
    baseUrl: () => baseUrl,
  };
  const setBaseUrl = (url: string): void => {
    baseUrl = url;
  };
  const rateLimits = { current: undefined };
  return { app, ctx, clock, faults, requests, rawHandlers, parts, rateLimits, setBaseUrl };
}

/**
 * Creates the modules (into `list`), seeds the config's state, installs the rate limits
 * (before any route, so every scope inherits them) and registers the routes.
 */
async function startModules(
  frame: Frame,
  list: ServerModule[],
  reset: () => Promise<void>,
): Promise<Modules> {
  const { app, ctx, clock, faults, requests, parts } = frame;
  const { config, options } = ctx;
  await placeNodeKey(config, ctx.dataDir, options.nodeKeyFile);
  const modules = await createModules(ctx);
  list.push(...(Object.values(modules) as ServerModule[]));
  await seedState(config, modules);
  const limits = await installRateLimits(app, options.rateLimitPerMinute, limitedRoutes(list));
  frame.rateLimits.current = limits;
  registerHealthz(app, clock);
  for (const m of list) await m.register(app);
  if (options.dev) {
    const counters = (): Record<string, unknown> => ({
      rate_limits: limits.counters(),
      connections: parts.guard?.counters ?? null,
    });
    registerDevRoutes(app, { clock, faults, requests, reset, counters });
    for (const m of list) await m.registerDev?.(app);
  } else {
    // First the addresses already over a limit (a flood is refused before anything else).
    frame.rawHandlers.push(limits.over.handle);
    for (const m of list) if (m.handleRaw !== undefined) frame.rawHandlers.push(m.handleRaw);
  }
  return modules;
}

/** Every module's rate-limited routes, together. */
function limitedRoutes(list: readonly ServerModule[]): LimitedRoutes {
  return {
    every: list.flatMap((m) => m.limitedRoutes?.every ?? []),
    failures: list.flatMap((m) => m.limitedRoutes?.failures ?? []),
  };
}

/** The given data directory, or a fresh temporary one (`ownDir`: removed on close). */
async function openDataDir(
  given: string | undefined,
): Promise<{ dataDir: string; ownDir: boolean }> {
  const dataDir =
    given === undefined ? await mkdtemp(join(tmpdir(), 'updates-server-')) : resolve(given);
  await makeDataDir(dataDir);
  return { dataDir, ownDir: given === undefined };
}

/** Fastify with the server's body limit, error path (docs/PROTOCOL.md §1) and 405 table. */
function createFastify(
  options: ServerOptions,
  logger: FastifyBaseLogger,
  rawHandlers: readonly RawHandler[],
  parts: ServerParts,
): FastifyInstance {
  const app = Fastify({
    // Always our server: the socket limits hold with --dev too (docs/SERVER.md §Limits).
    serverFactory: rawFirstServerFactory(rawHandlers, options, parts),
    loggerInstance: logger,
    // Fastify's two lines per request are replaced by one cheap line (logger.ts).
    logController: new LogController({ disableRequestLogging: true }),
    // No pino child per request (it costs on every route, the chain hot path included):
    // request.log is the app logger; our request line carries method, URL and status.
    childLoggerFactory: (logger) => logger,
    bodyLimit: options.maxBodyBytes,
    ajv: CHECK_ONLY_AJV,
    clientErrorHandler,
    // Errors raised before routing (an undecodable URL) bypass setErrorHandler.
    frameworkErrors: (error, _request, reply) => {
      const mapped = mapError(error);
      void sendError(reply, mapped.status, mapped.code, mapped.message);
    },
  });
  // The raw server sets it too; this hook covers app.inject() (docs/SECURITY.md §9).
  app.addHook('onRequest', (_request, reply, done) => {
    void reply.header(NOSNIFF[0], NOSNIFF[1]);
    done();
  });
  const routes = new RouteTable();
  routes.install(app);
  installErrorHandlers(app, routes);
  // Only JSON bodies are accepted; text/plain would otherwise slip through as a string.
  app.removeContentTypeParser('text/plain');
  return app;
}
