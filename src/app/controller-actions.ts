/**
 * The window's actions on the controller (docs/DESKTOP.md "Updates"): Cancel closes and
 * reopens the core (the verified partial bytes stay), Roll back restores the previous set and
 * skips the version it left, Verify re-hashes the installed files, Open log asks the shell.
 * Each tells the state machine what happened, so the card says it once, in its words.
 */
import type { UpdaterApi } from '#core/updater-api.js';
import type { ActionResult } from '#preload/ipc-contract.js';
import { busy, failed, verifyResult } from './action-results.js';
import type { StatusHub } from './status-hub.js';
import { rolledBackNotice } from './status/status-words.js';
import type { UpdateRunner } from './update-runner.js';

export interface ActionContext {
  readonly hub: StatusHub;
  readonly runner: UpdateRunner;
  readonly updater: () => UpdaterApi;
  /** Swaps in the reopened core and moves the event subscription to it. */
  readonly replaceUpdater: (next: UpdaterApi) => void;
  readonly setCancelling: (cancelling: Promise<void> | null) => void;
  readonly refresh: () => Promise<void>;
  readonly isClosed: () => boolean;
  readonly reopen?: () => Promise<UpdaterApi>;
  readonly openLog?: () => Promise<void>;
  readonly logLocation?: string;
  readonly log?: (message: string) => void;
  readonly nowMs: () => number;
}

export interface ControllerActions {
  cancel(): Promise<ActionResult>;
  rollBack(): Promise<ActionResult>;
  verify(): Promise<ActionResult>;
  openLog(): Promise<ActionResult>;
}

export function createControllerActions(ctx: ActionContext): ControllerActions {
  async function reopenAfterCancel(reopen: () => Promise<UpdaterApi>, run: Promise<void>) {
    let done: () => void = () => undefined;
    ctx.setCancelling(new Promise<void>((resolve) => (done = resolve)));
    try {
      // close() aborts the run in flight and keeps the verified partial bytes.
      await ctx.updater().close();
      await run.catch(() => undefined);
      ctx.replaceUpdater(await reopen());
    } finally {
      ctx.setCancelling(null);
      done();
    }
  }

  async function cancel(): Promise<ActionResult> {
    const run = ctx.runner.inFlight();
    if (run === null || ctx.isClosed()) return { ok: true, words: 'No update is running.' };
    if (ctx.reopen === undefined) {
      return failed(null, 'This window cannot cancel an update; it ends on its own.');
    }
    const progress = ctx.hub.current().progress;
    const targetVersion = progress?.targetVersion ?? null;
    try {
      await reopenAfterCancel(ctx.reopen, run);
    } catch (error) {
      ctx.log?.(`reopening after cancel failed: ${describe(error)}`);
      return failed(error, 'The updater could not be reopened after cancelling.');
    }
    await ctx.refresh();
    ctx.hub.dispatch({ type: 'cancelled', targetVersion, keptBytes: progress?.bytes ?? 0 });
    return { ok: true, words: ctx.hub.current().notice?.words ?? 'The download was stopped.' };
  }

  async function rollBack(): Promise<ActionResult> {
    if (ctx.runner.inFlight() !== null) return busy('roll back');
    const from = ctx.hub.current().installedVersion;
    try {
      const result = await ctx.updater().rollback();
      await ctx.refresh();
      ctx.hub.dispatch({ type: 'rolled-back', from, to: result.version, atMs: ctx.nowMs() });
      return { ok: true, words: rolledBackNotice(from, result.version).words };
    } catch (error) {
      return failed(error, 'Roll back stopped unexpectedly; see the log file.');
    }
  }

  return { cancel, rollBack, verify: () => verify(ctx), openLog: () => openLog(ctx) };
}

async function verify(ctx: ActionContext): Promise<ActionResult> {
  if (ctx.runner.inFlight() !== null) return busy('verify');
  ctx.hub.dispatch({ type: 'verifying', running: true });
  try {
    return verifyResult(await ctx.updater().verify());
  } catch (error) {
    return failed(error, 'Verify stopped unexpectedly; see the log file.');
  } finally {
    ctx.hub.dispatch({ type: 'verifying', running: false });
  }
}

async function openLog(ctx: ActionContext): Promise<ActionResult> {
  if (ctx.openLog === undefined) {
    // Nothing failed: there is no file to open here, so say where the log is instead of
    // advising to open it (docs/DESKTOP.md §Web window).
    const where = ctx.logLocation ?? 'kept by the program that opened this window';
    return { ok: true, words: `This window has no log file to open: the log is ${where}.` };
  }
  try {
    await ctx.openLog();
    return { ok: true, words: 'The log file is open in your viewer.' };
  } catch (error) {
    return failed(error, 'The log file could not be opened.');
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
