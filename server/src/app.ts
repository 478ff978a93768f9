/**
 * Builds the Fastify app (no listen): logger, error policy, dev controls and every module, in
 * the order of modules.ts. Tests use it with app.inject(); start-server.ts adds the port.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { destination, pino, type DestinationStream } from 'pino';
import { ServerClock } from './clock.js';
import type { ServerContext } from './context.js';
import { Faults } from './dev/faults.js';
import { RequestLog, redactUrl } from './dev/request-log.js';
import { clientErrorHandler } from './http/client-error.js';
import { installErrorHandlers, mapError } from './http/error-handler.js';
import { RouteTable } from './http/route-table.js';
import { sendError } from './http/send-error.js';
import type { ServerModule } from './module.js';
import { createModules, type Modules } from './modules.js';
import { DEFAULT_OPTIONS, type ServerOptions } from './options.js';
import { createRandom } from './random.js';
import { registerDevRoutes } from './routes/dev-routes.js';
import { registerHealthz } from './routes/healthz.js';

/** Log paths whose values are credentials (pino redaction). */
export const REDACTED_LOG_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  '*.authorization',
  'authorization',
  'machine_key',
  '*.machine_key',
  'token',
  '*.token',
  '*.access_token',
  '*.refresh_token',
  '*.id_token',
  '*.code',
  '*.code_verifier',
  'client_secret',
  '*.client_secret',
  'qa_client_secret',
  '*.qa_client_secret',
  '*.secret',
  '*.password',
  'secret_key_hex',
  '*.secret_key_hex',
];

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
  /** Called once the server listens, so modules can build absolute URLs. */
  setBaseUrl(url: string): void;
}

/** Merges partial options over the defaults. */
export function resolveOptions(options: Partial<ServerOptions>): ServerOptions {
  const merged: Record<string, unknown> = { ...DEFAULT_OPTIONS };
  for (const [key, value] of Object.entries(options)) if (value !== undefined) merged[key] = value;
  return merged as unknown as ServerOptions;
}

/**
 * Builds the app. Without `dataDir` a fresh temporary directory is used and removed on close.
 * @example const { app } = await buildApp({ dev: true, logLevel: 'silent' });
 */
export async function buildApp(
  partial: Partial<ServerOptions> = {},
  deps: BuildDeps = {},
): Promise<BuiltApp> {
  const options = resolveOptions(partial);
  const ownDir = options.dataDir === undefined;
  const dataDir =
    options.dataDir === undefined
      ? await mkdtemp(join(tmpdir(), 'updates-server-'))
      : resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });

  const logger = pino(
    {
      level: options.logLevel,
      redact: { paths: REDACTED_LOG_PATHS, censor: '[redacted]' },
    },
    deps.logStream ?? destination(1),
  );
  // Typed as Fastify's base logger so the app is a plain FastifyInstance for the modules.
  const baseLogger: FastifyBaseLogger = logger;
  // Hot public reads answered ahead of the router (ServerModule.handleRaw), filled once the
  // modules exist. Off with --dev, where the request log and one-shot faults must see them.
  const rawHandlers: ((request: IncomingMessage, response: ServerResponse) => boolean)[] = [];
  const serverFactory = (
    handler: (request: IncomingMessage, response: ServerResponse) => void,
    opts: Record<string, unknown>,
  ): Server => {
    const server = createServer((request, response) => {
      for (const raw of rawHandlers) if (raw(request, response)) return;
      handler(request, response);
    });
    // What Fastify sets on the servers it creates itself (lib/server.js getServerInstance).
    server.keepAliveTimeout = opts['keepAliveTimeout'] as number;
    server.requestTimeout = opts['requestTimeout'] as number;
    server.setTimeout(opts['connectionTimeout'] as number);
    const perSocket = opts['maxRequestsPerSocket'] as number;
    if (perSocket > 0) server.maxRequestsPerSocket = perSocket;
    return server;
  };
  const app = Fastify({
    ...(options.dev ? {} : { serverFactory }),
    loggerInstance: baseLogger,
    // Fastify's two lines per request are replaced by one cheap line below.
    logController: new LogController({ disableRequestLogging: true }),
    // No pino child per request (it costs on every route, the chain hot path included):
    // request.log is the app logger; our request line carries method, URL and status.
    childLoggerFactory: (logger) => logger,
    bodyLimit: options.maxBodyBytes,
    clientErrorHandler,
    // Errors raised before routing (an undecodable URL) bypass setErrorHandler.
    frameworkErrors: (error, _request, reply) => {
      const mapped = mapError(error);
      void sendError(reply, mapped.status, mapped.code, mapped.message);
    },
  });

  const routes = new RouteTable();
  routes.install(app);
  installErrorHandlers(app, routes);
  // Only JSON bodies are accepted; text/plain would otherwise slip through as a string.
  app.removeContentTypeParser('text/plain');

  const clock = new ServerClock(deps.now);
  const faults = new Faults();
  const requests = new RequestLog(clock);
  if (options.dev) {
    faults.install(app);
    requests.install(app);
  }
  if (logger.isLevelEnabled('info')) {
    // One cheap line per request; run with --log-level warn to drop it (benchmarks).
    app.addHook('onResponse', (request, reply, done) => {
      request.log.info(
        {
          method: request.method,
          url: redactUrl(request.url),
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 10) / 10,
        },
        'request',
      );
      done();
    });
  }

  let baseUrl = '';
  const ctx: ServerContext = {
    options: { ...options, dataDir },
    clock,
    random: createRandom(options.seed),
    dataDir,
    log: app.log,
    baseUrl: () => baseUrl,
  };
  const list: ServerModule[] = [];
  app.addHook('onClose', async () => {
    for (const m of list) await m.close?.();
    if (ownDir) await rm(dataDir, { recursive: true, force: true });
  });
  const reset = async (): Promise<void> => {
    clock.reset();
    faults.clear();
    requests.clear();
    for (const m of list) await m.reset();
  };

  let modules: Modules;
  try {
    modules = await createModules(ctx);
    list.push(...(Object.values(modules) as ServerModule[]));
    registerHealthz(app, clock);
    for (const m of list) await m.register(app);
    if (!options.dev) {
      for (const m of list) if (m.handleRaw !== undefined) rawHandlers.push(m.handleRaw);
    }
    if (options.dev) {
      registerDevRoutes(app, { clock, faults, requests, reset });
      for (const m of list) await m.registerDev?.(app);
    }
  } catch (error) {
    // A module that cannot start (bad node key, foreign release) must not leak a temp dir.
    await app.close();
    throw error;
  }

  return {
    app,
    ctx,
    modules,
    faults,
    requests,
    clock,
    reset,
    setBaseUrl: (url) => {
      baseUrl = url;
    },
  };
}
