/**
 * The updates area as a server module: the key chain and the keys held, machine keys,
 * releases, blobs, freshness and the routes over them (docs/PROTOCOL.md §2, §3). Data
 * directory layout (§2.7.8):
 *   node-key.json          root key (0600), unless --node-key FILE; may live offline
 *   release-key.json       release key (0600), the one-command publish; may live offline
 *   freshness-key.json     freshness key (0600), the only key a production server needs
 *   keys/<version>.json    the key chain, one envelope per key set
 *   freshness.json         the highest freshness sequence signed
 *   machines.json          machine records with key digests only (0600)
 *   releases/<ver>.json    release envelopes, exactly as signed
 *   legacy/<ver>.json      format 1 envelopes for clients that predate format 2
 *   blobs/<aa>/<sha256>    content-addressed artifacts
 *   tuf/                   the TUF repository (docs/PROTOCOL.md §TUF repository)
 * The state itself is opened in update-state.ts.
 */
import { watch } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../compose/context.js';
import type { ServerModule } from '../compose/module.js';
import { useLenientJson } from '../http/json-body.js';
import type { LimitedRoutes } from '../http/rate-limits.js';
import {
  MachineKeys,
  type MachineRecord,
  type MintResult,
  type SubscriptionStatus,
} from './machine-keys.js';
import type { PublishInput, PublishResult } from './publish/publisher.js';
import type { Release } from './publish/release-store.js';
import { MINT_PATH, registerDemoKeyMint } from './routes/demo-key-mint.js';
import { registerDevReleases } from './routes/dev-releases.js';
import { registerDevSubscriptions } from './routes/dev-subscriptions.js';
import { registerTufMetadata } from './routes/tuf-metadata.js';
import { registerTufTargets } from './routes/tuf-targets.js';
import { ARTIFACT_ROUTE, registerUpdatesArtifact } from './routes/updates-artifact.js';
import { registerUpdatesKeys } from './routes/updates-keys.js';
import { MANIFEST_PATH, registerUpdatesManifest } from './routes/updates-manifest.js';
import { INITIAL_VERSION, openUpdateState, type UpdateState } from './update-state.js';

/** In-process controls (startServer().updates). */
export interface UpdatesApi {
  /** The key clients pin, as 64 lowercase hex: the root of key set 1. */
  readonly nodePubkey: string;
  publish(input: PublishInput): Promise<PublishResult>;
  mintMachineKey(options?: {
    subscription?: SubscriptionStatus;
    label?: string;
  }): Promise<MintResult>;
  setSubscription(machineId: string, status: SubscriptionStatus): Promise<MachineRecord>;
  /** Adds a machine whose key the caller chose (config `machines`); see MachineKeys.put. */
  putMachineKey(fixed: Parameters<MachineKeys['put']>[0]): Promise<MachineRecord>;
  currentRelease(): Release | undefined;
  /** The highest version published in the data directory. */
  highestVersion(): string | undefined;
  /** The highest freshness sequence signed so far. */
  freshnessSequence(): number;
}

/** Mint floods and machine-key guessing are slowed (docs/SERVER.md §Rate limits). */
const LIMITED_ROUTES: LimitedRoutes = {
  every: [MINT_PATH],
  failures: [MANIFEST_PATH, ARTIFACT_ROUTE],
};

/** The public routes, in one scope with the lenient JSON body policy. */
function registerRoutes(app: FastifyInstance, keys: MachineKeys, state: UpdateState): void {
  const { answers, blobs, tuf, bundles } = state;
  void app.register((scope, _opts, done) => {
    useLenientJson(scope);
    registerDemoKeyMint(scope, keys);
    registerUpdatesManifest(scope, keys, answers, bundles);
    registerUpdatesKeys(scope, keys, answers);
    registerUpdatesArtifact(scope, keys, blobs);
    registerTufMetadata(scope, keys, tuf);
    registerTufTargets(scope, keys, blobs);
    done();
  });
}

/** The dev routes (only with --dev). */
function registerDevRoutes(app: FastifyInstance, keys: MachineKeys, state: UpdateState): void {
  void app.register((scope, _opts, done) => {
    useLenientJson(scope);
    registerDevReleases(scope, state.publisher);
    registerDevSubscriptions(scope, keys);
    done();
  });
}

/** Forgets machines, releases and blobs; a signed empty release follows where one was. */
async function resetUpdates(keys: MachineKeys, state: UpdateState): Promise<void> {
  await keys.clear();
  // In the publish queue: a publish in flight finishes first, one issued now runs after.
  // The key chain and the freshness sequence stay: clients keep their trust.
  await state.publisher.exclusive(async (publishNow) => {
    await state.releases.clear();
    await state.blobs.clear();
    if (state.trust().release !== undefined) {
      await publishNow({ registry_version: INITIAL_VERSION, artifacts: [] });
    }
  });
}

export async function createUpdatesModule(ctx: ServerContext): Promise<ServerModule<UpdatesApi>> {
  const state = await openUpdateState(ctx);
  const { releases, publisher, freshness, swept } = state;
  if (swept !== undefined && swept.blobs + swept.temps > 0) {
    ctx.log.warn({ swept }, 'removed the files an interrupted publish left');
  }
  const keys = new MachineKeys(ctx.dataDir, ctx.clock, ctx.random);
  await keys.load();
  const onError = (what: string) => (error: unknown) => {
    ctx.log.error({ err: error }, what);
  };
  const watcher = releases.watch(onError('a release in the data directory was refused'));
  const keysWatcher = watchKeys(state.trust().chain.dir, () => {
    state.reloadKeys().catch(onError('a key set in the data directory was refused'));
  });
  const tufWatcher = state.tuf.watch();

  return {
    name: 'updates',
    limitedRoutes: LIMITED_ROUTES,
    register: (app) => registerRoutes(app, keys, state),
    registerDev: (app) => registerDevRoutes(app, keys, state),
    close() {
      watcher.close();
      keysWatcher.close();
      tufWatcher.close();
    },
    reset: () => resetUpdates(keys, state),
    // QA harnesses read where the state lives (e.g. to check a temporary dir is removed).
    describe: () => ({ data_dir: ctx.dataDir }),
    api: {
      nodePubkey: state.trust().nodePubkeyHex,
      publish: (input) => publisher.publish(input),
      mintMachineKey: (options = {}) =>
        keys.mint(options.subscription ?? 'active', options.label ?? null),
      setSubscription: (id, status) => keys.setSubscription(id, status),
      putMachineKey: (fixed) => keys.put(fixed),
      currentRelease: () => releases.current,
      highestVersion: () => releases.highestVersion,
      freshnessSequence: () => freshness.sequence,
    },
  };
}

/** Calls `onChange` shortly after the keys directory changes (debounced like releases/). */
function watchKeys(dir: string, onChange: () => void): { close(): void } {
  let timer: NodeJS.Timeout | undefined;
  const watcher = watch(dir, () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, 50);
  });
  watcher.on('error', () => undefined);
  return {
    close: () => {
      clearTimeout(timer);
      watcher.close();
    },
  };
}
