/**
 * The user's answer to an offered version (docs/DESKTOP.md "Update policy"): Install now runs
 * the update the policy held back; Skip this version records it as skipped, so no check
 * installs or offers it again until a newer one appears. Later needs nothing from the app:
 * the offer stays, and the next check offers it again.
 */
import type { PlanSummary } from '#core/events.js';
import type { ActionResult, AppStatus } from '#preload/ipc-contract.js';
import type { Notice } from './notifications.js';
import type { StatusHub } from './status-hub.js';
import { sizeWords } from './status/status-words.js';
import type { UpdateRunner } from './update-runner.js';

export interface OfferActions {
  installNow(): Promise<ActionResult>;
  skipVersion(version: string): ActionResult;
}

export function createOfferActions(ctx: {
  readonly hub: StatusHub;
  readonly runner: UpdateRunner;
  readonly isClosed: () => boolean;
}): OfferActions {
  return {
    async installNow() {
      const offer = ctx.hub.current().offer;
      if (offer === null || ctx.isClosed()) return { ok: true, words: 'No update is offered.' };
      // A run in flight (a check) is joined first, then this one installs.
      await ctx.runner.inFlight()?.catch(() => undefined);
      await ctx.runner.run(false, true);
      return { ok: true, words: `Installing ${offer.version}.` };
    },
    skipVersion(version) {
      const status = ctx.hub.current();
      // Only the version on offer may be skipped: a stale window cannot skip another one.
      if (status.offer?.version !== version || ctx.isClosed()) {
        return { ok: true, words: 'That version is no longer offered.' };
      }
      ctx.hub.publish({ ...status, skippedVersion: version });
      ctx.hub.dispatch({ type: 'skipped-by-user', version });
      return {
        ok: true,
        words: `${version} is skipped; a newer version will be offered when one appears.`,
      };
    },
  };
}

/** The notification of an offered version (the policies "ask" and "notify"). */
export function offerNotice(plan: PlanSummary): Notice {
  return {
    title: `Verified Updater: ${plan.toVersion} is available`,
    body: `Verified, ${sizeWords(plan.bytesToFetch)} to download. Open the window to install it.`,
  };
}

/**
 * Keeps the skipped version where it survives a restart: told each change of the status's
 * skippedVersion (a skip, a rollback, or a newer version ending the skip).
 */
export function watchSkipped(
  hub: StatusHub,
  initial: string | null,
  persist: (version: string | null) => void,
): () => void {
  let saved = initial;
  return hub.listen((status: AppStatus) => {
    if (status.skippedVersion === saved) return;
    saved = status.skippedVersion;
    persist(saved);
  });
}
