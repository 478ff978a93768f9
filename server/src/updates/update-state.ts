/**
 * The update state of a data directory, opened (or initialised, or migrated from format 1) in
 * one place for the server module and the CLI's commands (docs/PROTOCOL.md §2.7.8): the keys
 * held, the releases verified under them, blobs, freshness, the publisher, the manifest and
 * TUF answers, and the reload of the keys after a rotation. The layout is listed in
 * updates-module.ts.
 */
import { join } from 'node:path';
import { envelopeFromJson, type KeySet } from '#protocol';
import type { ServerContext } from '../compose/context.js';
import { makeDataDir } from '../platform/data-dir.js';
import { BlobStore } from '../store/blob-store.js';
import { migrateFormatOne } from './format-one-migration.js';
import { FreshnessSigner } from './keys/freshness-signer.js';
import { KeyChainStore } from './keys/key-chain-store.js';
import { NODE_KEY_FILE } from './keys/node-key.js';
import {
  keysOf,
  openTrustKeys,
  promotePending,
  refuseNewRoot,
  type TrustKeys,
} from './keys/trust-keys.js';
import { ManifestAnswers } from './manifest-answers.js';
import { Publisher, PUBLISH_LOCK_FILE } from './publish/publisher.js';
import { verifyRelease } from './publish/release-bundle.js';
import { ReleaseStore } from './publish/release-store.js';
import { BundleAnswers } from './tuf/bundle-answers.js';
import { TufRepository } from './tuf/tuf-repository.js';

/** Where the content-addressed artifacts live under the data directory. */
export const BLOBS_DIR = 'blobs';
/** The release every fresh data directory starts with: signed, empty. */
export const INITIAL_VERSION = '0.0.0';

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

/** What openUpdateState opens. */
export type UpdateState = Awaited<ReturnType<typeof openUpdateState>>;
