/**
 * A fake ServerContext for chain tests: a manual clock (no real time), a fixed seed, the
 * simulator off unless asked, and a bare Fastify app with only the chain module registered and
 * the server's error handlers, which answer every refusal (docs/ARCHITECTURE.md §Server).
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { CHECK_ONLY_AJV } from '#server/http/route-schema.js';
import { pino } from 'pino';
import { ServerClock } from '#server/platform/clock.js';
import type { ServerContext } from '#server/compose/context.js';
import { installErrorHandlers } from '#server/http/error-handler.js';
import { RouteTable } from '#server/http/route-table.js';
import { ChainError } from '#server/chain/chain-error.js';
import { createChainModule, type ChainApi } from '#server/chain/chain-module.js';
import type { ServerModule } from '#server/compose/module.js';
import { NO_CONFIG } from '#server/config/load-config.js';
import { DEFAULT_OPTIONS, type ServerOptions } from '#server/compose/options.js';
import { createRandom } from '#server/platform/random.js';

/** 2026-01-01T00:00:00Z, an arbitrary fixed start; tests move the clock with `advance`. */
export const T0_MS = Date.UTC(2026, 0, 1);

export interface ChainHarness {
  readonly ctx: ServerContext;
  readonly clock: ServerClock;
  readonly module: ServerModule<ChainApi>;
  readonly api: ChainApi;
  readonly app: FastifyInstance;
  close(): Promise<void>;
}

/** Builds a context whose clock starts at `startMs` and only moves through `clock.advance()`. */
export function chainContext(
  options: Partial<ServerOptions> = {},
  startMs: number = T0_MS,
): ServerContext {
  const merged: ServerOptions = { ...DEFAULT_OPTIONS, simulate: false, seed: 7, ...options };
  return {
    options: merged,
    config: NO_CONFIG,
    clock: new ServerClock(() => startMs),
    random: createRandom(merged.seed),
    dataDir: '',
    log: pino({ level: 'silent' }),
    baseUrl: () => '',
  };
}

/** A bare Fastify app with the chain module's public (and, if `dev`, dev) routes and the server's error handlers. */
export async function chainHarness(
  options: Partial<ServerOptions> = {},
  startMs: number = T0_MS,
): Promise<ChainHarness> {
  const ctx = chainContext(options, startMs);
  const module = await createChainModule(ctx);
  // As buildApp: declared route shapes are checked, never rewritten (route-schema.ts).
  const app = Fastify({ logger: false, ajv: CHECK_ONLY_AJV });
  const routes = new RouteTable();
  routes.install(app);
  installErrorHandlers(app, routes);
  await module.register(app);
  if (ctx.options.dev) await module.registerDev?.(app);
  await app.ready();
  return {
    ctx,
    clock: ctx.clock,
    module,
    api: module.api,
    app,
    close: async () => {
      await app.close();
      await module.close?.();
    },
  };
}

/** The code of the ChainError that `fn` throws; anything else (or nothing) fails the test. */
export function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof ChainError) return error.code;
    throw error;
  }
  throw new Error('expected a ChainError');
}
