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
 */
import { watch } from 'node:fs';
import { join } from 'node:path';
import { envelopeFromJson, type KeySet } from '#protocol';
import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../compose/context.js';
import { useLenientJson } from '../http/json-body.js';
import type { ServerModule } from '../compose/module.js';
import type { LimitedRoutes } from '../http/rate-limits.js';
import { MINT_PATH, registerDemoKeyMint } from './routes/demo-key-mint.js';
import { registerDevReleases } from './routes/dev-releases.js';
import { registerDevSubscriptions } from './routes/dev-subscriptions.js';
import { ARTIFACT_ROUTE, registerUpdatesArtifact } from './routes/updates-artifact.js';
import { registerUpdatesKeys } from './routes/updates-keys.js';
import { MANIFEST_PATH, registerUpdatesManifest } from './routes/updates-manifest.js';
import { registerTufMetadata } from './routes/tuf-metadata.js';
import { registerTufTargets } from './routes/tuf-targets.js';
import { BundleAnswers } from './tuf/bundle-answers.js';
import { TufRepository } from './tuf/tuf-repository.js';
import { makeDataDir } from '../platform/data-dir.js';
import { BlobStore } from '../store/blob-store.js';
import { migrateFormatOne } from './format-one-migration.js';
import { FreshnessSigner } from './keys/freshness-signer.js';
import { NODE_KEY_FILE } from './keys/node-key.js';
import {
  MachineKeys,
  type MachineRecord,
  type MintResult,
  type SubscriptionStatus,
} from './machine-keys.js';
import { ManifestAnswers } from './manifest-answers.js';
import {
  Publisher,
  PUBLISH_LOCK_FILE,
  type PublishInput,
  type PublishResult,
} from './publish/publisher.js';
import { verifyRelease } from './publish/release-bundle.js';
import { ReleaseStore, type Release } from './publish/release-store.js';
import {
  keysOf,
  openTrustKeys,
  promotePending,
  refuseNewRoot,
  type TrustKeys,
} from './keys/trust-keys.js';
import { KeyChainStore } from './keys/key-chain-store.js';

export const BLOBS_DIR = 'blobs';
/** The release every fresh data directory starts with: signed, empty. */
export const INITIAL_VERSION = '0.0.0';

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

type StateContext = Pick<ServerContext, 'dataDir' | 'options' | 'clock' | 'random'>;

/** The keys in force; a rotation replaces `current` (keyReloader). */
interface TrustHolder {
  current: TrustKeys;
}

/**
 * Opens (or initialises, or migrates from format 1) the data directory's update state.
 * `newRoot: false` refuses to initialise a directory with a new node key (publish without
 * --init; trust-keys.ts NodeKeyMissingError).
 */
export async function openUpdateState(
  ctx: StateContext,
  options: { readonly newRoot?: boolean } = {},
) {
  if (options.newRoot === false) {
    // Refused before the directory is made: nothing is left behind.
    await refuseNewRoot(ctx.dataDir, ctx.options.nodeKeyFile);
  }
  await makeDataDir(ctx.dataDir);
  const held: TrustHolder = {
    current: await openTrustKeys(ctx.dataDir, ctx.options.nodeKeyFile, ctx.random),
  };
  const releases = await openReleases(ctx.dataDir, held);
  const blobs = new BlobStore(join(ctx.dataDir, BLOBS_DIR));
  const freshness = await FreshnessSigner.open(
    ctx.dataDir,
    [held.current.freshness],
    () => ctx.clock.now(),
    ctx.options.freshnessLifetimeS,
  );
  const answers = new ManifestAnswers(() => held.current.chain, releases, freshness);
  const publisher = new Publisher({
    keys: () => held.current,
    releases,
    blobs,
    clock: ctx.clock,
    freshen: async () => {
      const signed = await answers.statement();
      if (signed === undefined) throw new Error('no release to vouch for');
      const { sequence, issued_at, expires_at } = signed.statement;
      return { sequence, issued_at, expires_at };
    },
    lockPath: join(ctx.dataDir, PUBLISH_LOCK_FILE),
  });
  // What a killed publish left (docs/SERVER.md §One publisher at a time).
  const swept = await publisher.sweepAfterCrash();
  if (releases.highestVersion === undefined && held.current.release !== undefined) {
    await publisher.publish({ registry_version: INITIAL_VERSION, artifacts: [] });
  }
  const reloadKeys = keyReloader(ctx, held, releases, freshness);
  const trust = (): TrustKeys => held.current;
  // The TUF repository over the same keys and releases (docs/PROTOCOL.md §TUF repository).
  const tuf = await TufRepository.open({
    dataDir: ctx.dataDir,
    trust,
    current: () => releases.current,
    now: () => ctx.clock.now(),
    timestampLifetimeS: ctx.options.freshnessLifetimeS,
  });
  const bundles = new BundleAnswers(tuf, () => held.current.chain, releases);
  return {
    trust,
    releases,
    blobs,
    publisher,
    freshness,
    answers,
    reloadKeys,
    swept,
    tuf,
    bundles,
  };
}

/** The release store, loaded and verified under the keys held; format 1 releases migrated. */
async function openReleases(dataDir: string, held: TrustHolder): Promise<ReleaseStore> {
  const verify = (envelope: Parameters<typeof verifyRelease>[0]): void => {
    verifyRelease(envelope, held.current.chain.newest as NonNullable<TrustKeys['chain']['newest']>);
  };
  const releases = new ReleaseStore(dataDir, verify);
  const formatOne = await releases.load();
  if (formatOne.length > 0) {
    await migrateFormatOne(formatOne, held.current, releases);
    await releases.load();
  }
  return releases;
}

/**
 * Re-reads the chain and the key files after a rotation (rotate-keys on this directory).
 * All or nothing: until the new chain and the keys held agree, the old ones stay in use, and
 * the current release must verify under a new key set before that key set is used.
 */
function keyReloader(
  ctx: StateContext,
  held: TrustHolder,
  releases: ReleaseStore,
  freshness: FreshnessSigner,
): () => Promise<TrustKeys> {
  return async () => {
    const chain = new KeyChainStore(ctx.dataDir);
    await chain.load();
    const newest = chain.newest;
    const version = held.current.chain.newest?.version ?? 0;
    if (newest === undefined || newest.version <= version) return held.current;
    await promotePending(ctx.dataDir, newest, ctx.random);
    const rootFile = ctx.options.nodeKeyFile ?? join(ctx.dataDir, NODE_KEY_FILE);
    const fixedRoot = ctx.options.nodeKeyFile !== undefined;
    const next = await keysOf(chain, ctx.dataDir, rootFile, fixedRoot, ctx.random);
    const current = releases.current;
    if (current !== undefined) {
      verifyRelease(envelopeFromJson(current.envelope, 'release'), next.chain.newest as KeySet);
    }
    held.current = next;
    freshness.setSigners([next.freshness]);
    return next;
  };
}

/** Mint floods and machine-key guessing are slowed (docs/SERVER.md §Rate limits). */
const LIMITED_ROUTES: LimitedRoutes = {
  every: [MINT_PATH],
  failures: [MANIFEST_PATH, ARTIFACT_ROUTE],
};

type UpdateState = Awaited<ReturnType<typeof openUpdateState>>;

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
