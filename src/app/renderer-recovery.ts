/**
 * When the window's page fails (its renderer crashed or hung, or the page failed to load), the
 * main process asks this what to do (docs/DESKTOP.md "Lifecycle"): reload, at most
 * `maxReloads` times in a sliding `windowMs`, then give up and show the static "gave up" page
 * (gave-up-page.ts). Pure and clock-injected, so the budget is tested without real time.
 */

/** What the window does after a failure. */
export type RecoveryDecision =
  | { readonly action: 'reload'; readonly attempt: number; readonly maxReloads: number }
  /** Show the gave-up page (no reload is tried until the user asks for one). */
  | { readonly action: 'give-up'; readonly maxReloads: number; readonly windowMs: number }
  /** Already gave up and just showed the page: do nothing, so a failing page cannot spin. */
  | { readonly action: 'wait' };

export interface RendererRecoveryOptions {
  readonly nowMs: () => number;
  /** Reloads allowed within `windowMs` (default 3 in 60 s). */
  readonly maxReloads?: number;
  readonly windowMs?: number;
}

export interface RendererRecovery {
  /** Records a failure and says what to do about it. */
  failed(): RecoveryDecision;
  /** The user asked for a reload from the gave-up page: a fresh budget. */
  reset(): void;
  /** True from giving up until `reset`. */
  gaveUp(): boolean;
}

export const DEFAULT_MAX_RELOADS = 3;
export const DEFAULT_RELOAD_WINDOW_MS = 60_000;

export function createRendererRecovery(options: RendererRecoveryOptions): RendererRecovery {
  const maxReloads = options.maxReloads ?? DEFAULT_MAX_RELOADS;
  const windowMs = options.windowMs ?? DEFAULT_RELOAD_WINDOW_MS;
  let reloads: number[] = [];
  // When the gave-up page was last shown, or null while not given up.
  let gaveUpAtMs: number | null = null;

  const giveUp = (now: number): RecoveryDecision => {
    gaveUpAtMs = now;
    return { action: 'give-up', maxReloads, windowMs };
  };

  return {
    failed() {
      const now = options.nowMs();
      if (gaveUpAtMs !== null) {
        // The gave-up page itself failed (its renderer died too): show it again, but at most
        // once per window, the same bound that keeps reloads from spinning the CPU.
        return now - gaveUpAtMs >= windowMs ? giveUp(now) : { action: 'wait' };
      }
      reloads = reloads.filter((at) => at > now - windowMs);
      if (reloads.length >= maxReloads) return giveUp(now);
      reloads.push(now);
      return { action: 'reload', attempt: reloads.length, maxReloads };
    },
    reset() {
      reloads = [];
      gaveUpAtMs = null;
    },
    gaveUp: () => gaveUpAtMs !== null,
  };
}
