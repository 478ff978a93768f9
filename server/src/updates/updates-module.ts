/**
 * The updates area as a server module: node key, machine keys, releases, blobs and the routes
 * over them (docs/PROTOCOL.md §2, §3). Data directory layout:
 *   node-key.json          Ed25519 secret (0600), unless --node-key FILE
 *   machines.json          machine records with key digests only (0600)
 *   releases/<ver>.json    signed envelopes, exactly as served
 *   blobs/<aa>/<sha256>    content-addressed artifacts
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServerContext } from '../context.js';
import { useLenientJson } from '../http/json-body.js';
import type { ServerModule } from '../module.js';
import { registerDemoKeyMint } from '../routes/demo-key-mint.js';
import { registerDevSubscriptions } from '../routes/dev-subscriptions.js';
import { registerDevReleases } from '../routes/dev-releases.js';
import { registerUpdatesArtifact } from '../routes/updates-artifact.js';
import { registerUpdatesManifest } from '../routes/updates-manifest.js';
import { BlobStore } from '../store/blob-store.js';
import {
  MachineKeys,
  type MachineRecord,
  type MintResult,
  type SubscriptionStatus,
} from './machine-keys.js';
import { loadNodeKey } from './node-key.js';
import { Publisher, type PublishInput, type PublishResult } from './publisher.js';
import { ReleaseStore, type Release } from './release-store.js';

export const BLOBS_DIR = 'blobs';
/** The release every fresh data directory starts with: signed, empty. */
export const INITIAL_VERSION = '0.0.0';

/** In-process controls (startServer().updates). */
export interface UpdatesApi {
  /** The node's public key as 64 lowercase hex. */
  readonly nodePubkey: string;
  publish(input: PublishInput): Promise<PublishResult>;
  mintMachineKey(options?: {
    subscription?: SubscriptionStatus;
    label?: string;
  }): Promise<MintResult>;
  setSubscription(machineId: string, status: SubscriptionStatus): Promise<MachineRecord>;
  currentRelease(): Release | undefined;
}

/** Opens (or initialises) the data directory's update state. */
export async function openUpdateState(
  ctx: Pick<ServerContext, 'dataDir' | 'options' | 'clock' | 'random'>,
) {
  await mkdir(ctx.dataDir, { recursive: true, mode: 0o700 });
  const key = await loadNodeKey(ctx.dataDir, ctx.options.nodeKeyFile, ctx.random);
  const releases = new ReleaseStore(ctx.dataDir, key.publicKey);
  await releases.load();
  const blobs = new BlobStore(join(ctx.dataDir, BLOBS_DIR));
  const publisher = new Publisher(key, releases, blobs, ctx.clock);
  if (releases.highestVersion === undefined) {
    await publisher.publish({ registry_version: INITIAL_VERSION, artifacts: [] });
  }
  return { key, releases, blobs, publisher };
}

export async function createUpdatesModule(ctx: ServerContext): Promise<ServerModule<UpdatesApi>> {
  const { key, releases, blobs, publisher } = await openUpdateState(ctx);
  const keys = new MachineKeys(ctx.dataDir, ctx.clock, ctx.random);
  await keys.load();
  const watcher = releases.watch((error) => {
    ctx.log.error({ err: error }, 'a release in the data directory was refused');
  });

  return {
    name: 'updates',
    register(app) {
      void app.register((scope, _opts, done) => {
        useLenientJson(scope);
        registerDemoKeyMint(scope, keys);
        registerUpdatesManifest(scope, keys, releases);
        registerUpdatesArtifact(scope, keys, blobs);
        done();
      });
    },
    registerDev(app) {
      void app.register((scope, _opts, done) => {
        useLenientJson(scope);
        registerDevReleases(scope, publisher);
        registerDevSubscriptions(scope, keys);
        done();
      });
    },
    close() {
      watcher.close();
    },
    async reset() {
      await keys.clear();
      // In the publish queue: a publish in flight finishes first, one issued now runs after.
      await publisher.exclusive(async (publishNow) => {
        await releases.clear();
        await blobs.clear();
        await publishNow({ registry_version: INITIAL_VERSION, artifacts: [] });
      });
    },
    // QA harnesses read where the state lives (e.g. to check a temporary dir is removed).
    describe: () => ({ data_dir: ctx.dataDir }),
    api: {
      nodePubkey: key.publicKeyHex,
      publish: (input) => publisher.publish(input),
      mintMachineKey: (options = {}) =>
        keys.mint(options.subscription ?? 'active', options.label ?? null),
      setSubscription: (id, status) => keys.setSubscription(id, status),
      currentRelease: () => releases.current,
    },
  };
}
