/**
 * The loading steps of the TUF client workflow (TUF spec §5.3..§5.6): each reads what is
 * stored, fetches what is new, hands both to the trusted set and stores only what it trusted.
 * Stored metadata that no longer verifies is not an error: it is simply not final, and the
 * repository's copy decides.
 */
import {
  TufError,
  isTufError,
  type Envelope,
  type RoleKeys,
  type Targets,
} from '#protocol/tuf/index.js';
import type { TufClientConfig } from './config.js';
import type { MetadataStore, TufFetcher } from './ports.js';
import { metadataFileName, withSlash } from './role-names.js';
import type { TrustedMetadataSet } from './trusted-set.js';

export interface WorkflowContext {
  readonly trusted: TrustedMetadataSet;
  readonly fetcher: TufFetcher;
  readonly store: MetadataStore;
  readonly config: TufClientConfig;
  readonly metadataBaseUrl: string;
  /** Sent with the timestamp request and required back in it (TufUpdaterOptions.nonce). */
  readonly nonce?: string;
}

function fetchMetadata(
  ctx: WorkflowContext,
  fileName: string,
  maxBytes: number,
): Promise<Uint8Array> {
  return ctx.fetcher.get(`${withSlash(ctx.metadataBaseUrl)}${fileName}`, maxBytes);
}

/** Runs `step` on stored bytes; a TufError means "not final", anything else is a fault. */
async function tryStored<T>(
  ctx: WorkflowContext,
  role: string,
  step: (bytes: Uint8Array) => T,
): Promise<T | undefined> {
  const bytes = await ctx.store.read(role);
  if (bytes === undefined) return undefined;
  try {
    return step(bytes);
  } catch (error) {
    if (isTufError(error)) return undefined;
    throw error;
  }
}

/**
 * TUF spec §5.3: walks root N+1, N+2, ... until the repository has no next one (403/404),
 * storing each trusted root and the keys it retired. More than `maxRootRotations` new roots in one run is refused
 * (TOO_MANY_ROOT_ROTATIONS) after the ones walked are stored. §5.3.11: when the timestamp or
 * snapshot keys changed, the stored timestamp and snapshot are deleted, so that a rotation
 * recovers from a fast-forward attack.
 */
export async function loadRoot(ctx: WorkflowContext): Promise<void> {
  const lower = ctx.trusted.root.signed.version + 1;
  const upper = lower + ctx.config.maxRootRotations;
  for (let version = lower; version < upper; version += 1) {
    let bytes: Uint8Array;
    try {
      bytes = await fetchMetadata(ctx, `${version}.root.json`, ctx.config.rootMaxBytes);
    } catch (error) {
      if (isTufError(error, 'NOT_FOUND')) return;
      throw error;
    }
    const before = ctx.trusted.root.signed;
    const after = ctx.trusted.updateRoot(bytes).signed;
    // The retired keys first: a crash between the two leaves a list naming keys the stored
    // root may still list, which reading it drops (retired-keys.ts).
    await ctx.store.writeRetiredKeys(ctx.trusted.retiredKeysBytes());
    await ctx.store.write('root', bytes);
    // Checked at each step, so a later root failing cannot hide a rotation already trusted.
    if (
      rotated(before.roles.timestamp, after.roles.timestamp) ||
      rotated(before.roles.snapshot, after.roles.snapshot)
    ) {
      await ctx.store.remove('timestamp');
      await ctx.store.remove('snapshot');
    }
  }
  throw new TufError(
    'TOO_MANY_ROOT_ROTATIONS',
    `more than ${ctx.config.maxRootRotations} new roots`,
    {
      trusted: ctx.trusted.root.signed.version,
    },
  );
}

function rotated(before: RoleKeys, after: RoleKeys): boolean {
  return (
    before.keyids.length !== after.keyids.length ||
    before.keyids.some((k) => !after.keyids.includes(k))
  );
}

/**
 * TUF spec §5.4: the stored timestamp first (for rollback checks), then the repository's,
 * asked for with the run's nonce when there is one.
 */
export async function loadTimestamp(ctx: WorkflowContext): Promise<void> {
  await tryStored(ctx, 'timestamp', (bytes) => ctx.trusted.updateTimestamp(bytes));
  const name =
    ctx.nonce === undefined
      ? 'timestamp.json'
      : `timestamp.json?nonce=${encodeURIComponent(ctx.nonce)}`;
  const bytes = await fetchMetadata(ctx, name, ctx.config.timestampMaxBytes);
  if (ctx.trusted.updateTimestamp(bytes, ctx.nonce) === 'updated') {
    await ctx.store.write('timestamp', bytes);
  }
}

/** TUF spec §5.5: the stored snapshot if timestamp still names it, else the repository's. */
export async function loadSnapshot(ctx: WorkflowContext): Promise<void> {
  const stored = await tryStored(ctx, 'snapshot', (bytes) => {
    ctx.trusted.updateSnapshot(bytes, true);
    return true;
  });
  if (stored === true) return;
  const meta = ctx.trusted.timestamp?.signed.snapshotMeta;
  if (meta === undefined) throw new TufError('WRONG_ORDER', 'snapshot before timestamp');
  const version = ctx.trusted.root.signed.consistentSnapshot ? meta.version : undefined;
  const bytes = await fetchMetadata(
    ctx,
    metadataFileName('snapshot', version),
    meta.length ?? ctx.config.snapshotMaxBytes,
  );
  ctx.trusted.updateSnapshot(bytes, false);
  await ctx.store.write('snapshot', bytes);
}

/**
 * TUF spec §5.6: a targets role as its delegator allows it. A role already trusted in this run
 * is checked again against this delegator's keys (a role reached by two paths must satisfy
 * each); then the stored copy is tried, then the repository's.
 */
export async function loadTargets(
  ctx: WorkflowContext,
  role: string,
  delegator: string,
): Promise<Envelope<Targets>> {
  const trusted = ctx.trusted.targets(role);
  if (trusted !== undefined) {
    ctx.trusted.requireSignedByDelegator(trusted, role, delegator);
    return trusted;
  }
  const stored = await tryStored(ctx, role, (bytes) =>
    ctx.trusted.updateDelegatedTargets(bytes, role, delegator),
  );
  if (stored !== undefined) return stored;
  const meta = ctx.trusted.snapshot?.signed.meta.get(`${role}.json`);
  if (meta === undefined) {
    throw new TufError('ROLE_NOT_IN_SNAPSHOT', `snapshot does not list ${role}`, { role });
  }
  const version = ctx.trusted.root.signed.consistentSnapshot ? meta.version : undefined;
  const bytes = await fetchMetadata(
    ctx,
    metadataFileName(role, version),
    meta.length ?? ctx.config.targetsMaxBytes,
  );
  const targets = ctx.trusted.updateDelegatedTargets(bytes, role, delegator);
  await ctx.store.write(role, bytes);
  return targets;
}
