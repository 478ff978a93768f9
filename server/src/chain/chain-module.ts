/**
 * The chain-activity module (docs/PROTOCOL.md §5, docs/CHAIN.md): machines, per-unit transition counts, the seeded
 * simulator, GET /api/chain/active and, with --dev, its dev routes. See docs/PROTOCOL.md §5.
 */
import type { ActivityResponse } from '#protocol';
import { DEFAULT_LIMIT, DEFAULT_WINDOW_UNITS, MAX_LIMIT, UNIT_MS } from '#protocol';
import type { ServerContext } from '../compose/context.js';
import type { ServerModule } from '../compose/module.js';
import { chainActiveRaw, registerChainActive } from './routes/chain-active.js';
import { registerDevChain } from './routes/dev-chain.js';
import type { MachineResult, TransitionResult } from './chain-state.js';
import { ChainState } from './chain-state.js';
import { ChainSimulator } from './chain-simulator.js';
import type { TransitionInput } from './dev-input.js';
import type { MachineInput } from './machine-registry.js';

/** In-process controls, exposed on startServer()'s handle as `chain`. */
export interface ChainApi {
  /** Adds a machine or updates its name and visibility; throws ChainError on bad input. */
  addMachine(input: MachineInput): MachineResult;
  /** Records transitions (unit defaults to the current one); throws ChainError on refusal. */
  addTransitions(input: TransitionInput): TransitionResult;
  /** The ranking the route would serve for these values (clamped and defaulted the same way). */
  ranking(window?: number, limit?: number, series?: boolean): ActivityResponse;
  /** The current, incomplete unit index. */
  unitNow(): number;
}

/**
 * Builds the chain module from the server context (clock, seed, simulate options).
 * @example const chain = await createChainModule(ctx); await chain.register(app);
 */
export function createChainModule(ctx: ServerContext): Promise<ServerModule<ChainApi>> {
  const state = new ChainState(() => ctx.clock.now());
  const seed = ctx.options.seed ?? ctx.random.bytes(4).readUInt32LE(0);
  const simulator = ctx.options.simulate
    ? new ChainSimulator(state, { seed, machines: ctx.options.simulateMachines })
    : undefined;
  simulator?.start();
  // Keeps the simulator warm between requests; correctness never depends on it (lazy catch-up).
  let timer: NodeJS.Timeout | undefined;
  if (simulator !== undefined) {
    timer = setInterval(() => simulator.catchUp(), UNIT_MS);
    timer.unref();
  }

  const source = {
    retainedUnits: state.retainedUnits,
    body(window: number, limit: number, series: boolean) {
      simulator?.catchUp();
      return state.body(window, limit, series);
    },
  };
  const api: ChainApi = {
    addMachine: (input) => state.addMachine(input),
    addTransitions: (input) => {
      simulator?.catchUp();
      return state.addTransitions(input);
    },
    // A copy: the cached object backs the served bytes' twin and must not be mutated by callers.
    ranking: (window, limit, series) =>
      structuredClone(
        source.body(
          clampInt(window, DEFAULT_WINDOW_UNITS, state.retainedUnits),
          clampInt(limit, DEFAULT_LIMIT, MAX_LIMIT),
          series === true,
        ).response,
      ),
    unitNow: () => state.units.current(),
  };

  return Promise.resolve({
    name: 'chain',
    register: (app) => registerChainActive(app, source),
    handleRaw: chainActiveRaw(source),
    registerDev: (app) => registerDevChain(app, api),
    reset: () => {
      state.clear();
      simulator?.start();
    },
    // First stdout line: lets QA reproduce the simulated population (the seed is no secret).
    describe: () => ({
      chain_simulate: simulator !== undefined,
      chain_simulated_machines: simulator?.population ?? 0,
      chain_seed: seed,
    }),
    close: () => {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
    api,
  });
}

/** In-process twin of the query rule: non-integers fall back to the default, others clamp. */
function clampInt(value: number | undefined, fallback: number, max: number): number {
  if (value === undefined || !Number.isSafeInteger(value) || value < 0) return fallback;
  return Math.min(Math.max(value, 1), max);
}
