/**
 * The TUF side of the accept step (docs/PROTOCOL.md §TUF repository, "Client"): with a trusted
 * root in the state directory, one run opens a TufUpdater on the stored metadata, refreshes
 * root, timestamp, snapshot and targets over the run's HTTP context (the machine key as
 * bearer), and turns the trusted targets into the VerifiedManifest planning accepts. The
 * targets' bytes are then pulled by today's pull (streamed, hashed, resumable), never through
 * the workflow's in-memory download.
 */
import type { Root } from '#protocol/tuf/index.js';
import { UpdateError } from '../errors.js';
import type { UpdaterState } from '../state.js';
import { withRetries } from '../transfer/index.js';
import {
  fromTufError,
  runTufFetcher,
  tufFloor,
  verifiedFromTargets,
  type VerifiedManifest,
} from '../trust/index.js';
import { BundleFetcher, TufUpdater } from '../tuf/index.js';
import { newNonce } from './nonce.js';
import { nowOf, type RunContext, type TufRunPorts } from './run-context.js';

/** Where the repository is, relative to the base URL (docs/PROTOCOL.md §TUF repository). */
export const TUF_METADATA_PATH = 'api/updates/tuf/';
export const TUF_TARGETS_PATH = 'api/updates/tuf/targets/';
/** The one-request check: timestamp, snapshot and targets in one body (§TUF repository). */
export const TUF_BUNDLE_PATH = 'api/updates/manifest?format=tuf';

/**
 * Refreshes the TUF metadata and builds the run's VerifiedManifest; every refusal is an
 * UpdateError (tuf-errors.ts). A transient failure retries the whole refresh from the stored
 * metadata, with a fresh nonce under requireNonce. Only metadata the workflow trusted is
 * stored: a refused file is never kept (genuine timestamp and snapshot fetched before it may
 * be), and a policy refusal after the refresh (ROLLBACK) keeps its floor in the installed set,
 * not in the stored targets (tuf-floor.ts), so a second run refuses it again.
 */
export async function fetchVerifiedTuf(
  run: RunContext,
  state: UpdaterState,
  tuf: TufRunPorts,
): Promise<VerifiedManifest> {
  const { http } = run;
  const retry = { limits: run.limits, timers: http.timers, random: run.random, signal: run.signal };
  const checkedDigest = state.installed?.setId;
  const refreshed = await withRetries(retry, () => refreshOnce(run, tuf, checkedDigest));
  const { manifest, root } = refreshed;
  const floor = await tufFloor(run.store, state, root, manifest.setId);
  return { ...manifest, tufFloor: floor };
}

/** One refresh: the VerifiedManifest (no floor yet) and the final trusted root. */
async function refreshOnce(
  run: RunContext,
  tuf: TufRunPorts,
  checkedDigest: string | undefined,
): Promise<{ manifest: VerifiedManifest; root: Root }> {
  const base = run.http.endpoint.base;
  const nonce = run.requireNonce ? newNonce(run.randomBytes) : undefined;
  const metadataBaseUrl = new URL(TUF_METADATA_PATH, base).href;
  // The workflow sends the nonce with the timestamp and requires it back, signed
  // (NONCE_MISMATCH); the bundle is asked for with the same nonce.
  const withNonce = nonce === undefined ? {} : { nonce };
  const fetcher = new BundleFetcher(runTufFetcher(run.http, run.signal), {
    metadataBaseUrl,
    bundleUrl: new URL(TUF_BUNDLE_PATH, base).href,
    ...withNonce,
  });
  try {
    const updater = await TufUpdater.open({
      metadataBaseUrl,
      fetcher,
      store: tuf.store,
      clock: run.http.clock,
      ...withNonce,
      ...(tuf.config === undefined ? {} : { config: tuf.config }),
    });
    // Refreshes, then walks the delegations: the release is every role's targets
    // (docs/PROTOCOL.md §TUF repository, "Delegated targets in a release").
    const release = await updater.releaseTargets();
    const { trusted } = updater;
    const targets = trusted.targets('targets');
    const timestamp = trusted.timestamp;
    if (targets === undefined || timestamp === undefined) {
      throw new UpdateError('IO', 'the TUF refresh ended without targets');
    }
    const targetBase = new URL(TUF_TARGETS_PATH, base).href;
    const manifest = verifiedFromTargets({
      targets,
      release,
      urlOf: (target) => updater.targetUrl(target, targetBase),
      freshUntilMs: timestamp.signed.expiresMs,
      nowMs: nowOf(run),
      checkedDigest,
    });
    return { manifest, root: trusted.root.signed };
  } catch (error) {
    throw fromTufError(error, nowOf(run));
  }
}
