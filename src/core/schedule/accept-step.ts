/**
 * The accept step of an update run: fetch the manifest answer, verify it, apply policy, plan
 * and record the acceptance. Nothing is pulled or installed here; update-steps.ts does that.
 */
import type { ManifestArtifact } from '#protocol/manifest.js';
import { fetchKeyChain } from '../trust/index.js';
import { fetchManifest, prepareKeys, type ManifestOverlap } from '../trust/index.js';
import { holdsExactly, planHeldSet, planUpdate, type Plan } from '../plan/index.js';
import { alreadyRecorded, checkPolicy, recordAcceptance } from '../trust/index.js';
import { newNonce } from './nonce.js';
import { missingBlobs } from '../transfer/index.js';
import { withRetries } from '../transfer/index.js';
import { nowOf, type RunContext } from './run-context.js';
import { fetchVerifiedTuf } from './tuf-step.js';
import type { InstalledSet, UpdaterState } from '../state.js';
import {
  needsKeyChain,
  parseAnswer,
  trustInputOf,
  verifyParsedAnswer,
  type AnswerInput,
  type VerifiedManifest,
} from '../trust/index.js';

/** A manifest that passed verification and policy, with the state that records it. */
export interface Accepted {
  readonly verified: VerifiedManifest;
  readonly plan: Plan;
  readonly state: UpdaterState;
  /**
   * The artifacts (one per digest) the blob store lacked when the plan was made, which the
   * pull's plan takes as they are (chunk-step.ts `planPull`): one lookup per digest per run,
   * not two. Absent when the installed set holds exactly these entries (nothing looked up).
   */
  readonly missing?: readonly ManifestArtifact[];
}

/**
 * Digests new to the installed set that the blob store already holds, so the plan counts them
 * as reused (plan.ts): `check` after a rollback then reports the ~0 bytes `update` moves.
 * `missing`: what the store lacks of the whole list (pull.ts `missingBlobs`).
 */
function storedNewBlobs(
  installed: InstalledSet | null,
  verified: VerifiedManifest,
  missing: readonly ManifestArtifact[],
): ReadonlySet<string> {
  const have = new Set(installed?.artifacts.map((a) => a.sha256));
  const lacked = new Set(missing.map((a) => a.sha256));
  const held = new Set<string>();
  for (const { sha256 } of verified.manifest.artifacts) {
    if (!have.has(sha256) && !lacked.has(sha256)) held.add(sha256);
  }
  return held;
}

/**
 * With a trusted TUF root, the TUF refresh (tuf-step.ts). Otherwise fetches the answer (with a
 * fresh nonce per attempt under requireNonce) and verifies it against the state, fetching the
 * whole key chain when the answer's links cannot reach the trusted key set (docs/PROTOCOL.md
 * §2.7.4). Nothing of the updater's state is written (TUF stores the metadata it trusted).
 * With `keeping`, the answer's keeping in the cache is pushed there, not waited for.
 */
export async function fetchVerified(
  run: RunContext,
  state: UpdaterState,
  keeping?: Promise<void>[],
): Promise<VerifiedManifest> {
  if (run.tuf !== undefined) return fetchVerifiedTuf(run, state, run.tuf);
  const { http, limits } = run;
  const retry = { limits, timers: http.timers, random: run.random, signal: run.signal };
  // The pinned keys are readied while the answer travels, and the answer is kept in the cache
  // beside what follows: both off the span from its last byte to the first pack request
  // (docs/UPDATER.md §11.3).
  const overlap: ManifestOverlap = {
    whileWaiting: () => prepareKeys(run.pinned),
    ...(keeping === undefined ? {} : { keeping: (kept) => void keeping.push(kept) }),
  };
  const { bytes, nonce } = await withRetries(retry, async () => {
    const sent = run.requireNonce ? newNonce(run.randomBytes) : undefined;
    return {
      bytes: await fetchManifest(http, run.signal, run.answers, sent, overlap),
      nonce: sent,
    };
  });
  const input: AnswerInput = {
    pinned: run.pinned,
    ...trustInputOf(state),
    nowMs: nowOf(run),
    maxFutureSkewMs: limits.maxFutureSkewMs,
    nonce,
    maxManifestBytes: limits.maxManifestBytes,
  };
  const answer = parseAnswer(bytes, limits.maxManifestBytes);
  let chain;
  if (answer.format === 2 && needsKeyChain(answer.keys, input)) {
    run.logger.info("the answer's key links do not reach the trusted key set: fetching the chain");
    chain = await withRetries(retry, () => fetchKeyChain(http, run.signal));
  }
  return verifyParsedAnswer(answer, bytes, input, chain);
}

/** How accept persists: `deferUnchanged`, the caller writes the state later in this run. */
export interface AcceptOptions {
  readonly deferUnchanged?: boolean;
}

/**
 * True when recording `verified` would change nothing the trust rules keep: its digest is recorded,
 * the rollback floor is at or above it, and (format 2) the key set, retired keyids and
 * freshness floor are the ones already held (docs/PROTOCOL.md §2.7.5). Any doubt is a change:
 * a write too many is harmless, a floor not written is not.
 */
export function acceptanceUnchanged(loaded: UpdaterState, recorded: UpdaterState): boolean {
  const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
  return (
    loaded.highestAcceptedVersion === recorded.highestAcceptedVersion &&
    same(loaded.acceptedDigests, recorded.acceptedDigests) &&
    same(loaded.releaseDigests, recorded.releaseDigests) &&
    same(loaded.trust, recorded.trust) &&
    same(loaded.freshness, recorded.freshness)
  );
}

/** An acceptance decided but not yet written: `record()` makes it durable (§3's first step). */
export interface Admitted extends Accepted {
  /**
   * Writes the audit entry, then the state (fsynced), then tells `accepted-recorded`. Call it
   * once; nothing of the new set may be written before it resolves (docs/UPDATER.md §3).
   */
  readonly record: () => Promise<void>;
}

/**
 * Fetch, verify, apply policy and plan, writing nothing: the acceptance is returned with the
 * write that records it (docs/UPDATER.md §1, step 4). An update starts its pull's requests
 * while that write is made durable (record-gate.ts); `accept` below awaits it first.
 */
export async function admit(run: RunContext, options: AcceptOptions = {}): Promise<Admitted> {
  // The answer's keeping in the cache runs beside verifying and planning; the record waits for
  // it, and so does a failure, so no write of this step is left in flight after it.
  const keeping: Promise<void>[] = [];
  try {
    return await admitKeeping(run, options, keeping);
  } catch (error) {
    await Promise.all(keeping);
    throw error;
  }
}

async function admitKeeping(
  run: RunContext,
  options: AcceptOptions,
  keeping: Promise<void>[],
): Promise<Admitted> {
  const { http, store, limits } = run;
  const loaded = await store.loadState();
  const verified = await fetchVerified(run, loaded, keeping);
  checkPolicy(verified, loaded, nowOf(run), limits, http.endpoint.base.href);
  const installed = loaded.installed;
  // One walk decides both: a set holding exactly these entries has no new digest to look up
  // and is planned as all reused (plan.ts `planHeldSet`): an up-to-date run costs no lookup.
  let plan: Plan;
  let missing: readonly ManifestArtifact[] | undefined;
  if (installed !== null && holdsExactly(installed, verified)) {
    plan = planHeldSet(installed, verified);
  } else {
    missing = await missingBlobs(store, verified.manifest.artifacts);
    plan = planUpdate(installed, verified, storedNewBlobs(installed, verified, missing));
  }
  // The trusted key set, retired keyids and freshness floor go in this same write.
  const state = { ...recordAcceptance(loaded, verified), lastCheckAtMs: nowOf(run) };
  const atMs = nowOf(run);
  const record = async (): Promise<void> => {
    // Only when there is one: an await more would start the record a tick later.
    if (keeping.length > 0) await Promise.all(keeping);
    // Audit first: a crash in between repeats an entry rather than losing one.
    if (!alreadyRecorded(loaded, verified)) {
      await store.appendAudit({
        version: verified.manifest.registry_version,
        payloadSha256: verified.setId,
        keyid: verified.keyid,
        atMs,
      });
    }
    if (options.deferUnchanged !== true || !acceptanceUnchanged(loaded, state)) {
      await store.saveState(state);
    }
    run.onStep?.('accepted-recorded');
  };
  return { verified, plan, state, ...(missing === undefined ? {} : { missing }), record };
}

/**
 * Fetch, verify, apply policy and persist the acceptance (audit entry, then state). With
 * `deferUnchanged` an acceptance that changes nothing is not written here: `update` writes the
 * state once at its end (update-steps.ts `install`), and a failure records itself.
 */
export async function accept(run: RunContext, options: AcceptOptions = {}): Promise<Accepted> {
  const { record, ...accepted } = await admit(run, options);
  await record();
  return accepted;
}
