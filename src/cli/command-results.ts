/**
 * What each CLI command answers (docs/UPDATER.md §7): the object of `--json` and the one line
 * of text, per command. run-cli.ts runs them; this file only shapes their results.
 */
import type { UpdaterApi } from '#core/updater-api.js';
import { resolveCurrentSet } from '#node/store/index.js';
import type { Command } from './args.js';
import { planJson, planLine, probationJson, updateLine, type Json } from './output-format.js';

/** A command's answer: the `--json` object and the line of text. */
export interface CommandResult {
  readonly json: Json;
  readonly text: string;
}

/** verify found drift: the report, thrown so the run exits 1 with it. */
export class Drift extends Error {
  constructor(readonly report: Json) {
    super('the installed set differs from the signed manifest');
  }
}

/** `check`: what an update would do, or why the version is skipped. */
async function checkResult(updater: UpdaterApi): Promise<CommandResult> {
  const plan = await updater.check();
  // The plan's from-version is the installed one: no second read of the state file.
  const installedVersion = plan.fromVersion;
  const skipped = plan.skipped;
  const available =
    skipped === undefined &&
    (installedVersion !== plan.toVersion || plan.fetch.length > 0 || plan.remove.length > 0);
  return {
    json: {
      version: plan.toVersion,
      installed_version: installedVersion,
      update_available: available,
      plan: planJson(plan),
      ...(skipped === undefined
        ? {}
        : { skipped: { version: plan.toVersion, reason: skipped.reason } }),
    },
    text:
      skipped !== undefined
        ? `skipped ${plan.toVersion}: ${skipped.reason}`
        : available
          ? `update available: ${installedVersion ?? 'nothing'} -> ${plan.toVersion}; ${planLine(plan)}`
          : `up to date at ${plan.toVersion}`,
  };
}

/** `update`: the outcome, bytes and plan of one run. */
async function updateResult(updater: UpdaterApi): Promise<CommandResult> {
  const result = await updater.update();
  return {
    json: {
      outcome: result.outcome,
      version: result.version,
      bytes_downloaded: result.bytesDownloaded,
      plan: result.plan === null ? null : planJson(result.plan),
      ...(result.repaired === undefined ? {} : { repaired: result.repaired }),
      ...(result.skipped === undefined ? {} : { skipped: result.skipped }),
      ...(result.probation === undefined
        ? {}
        : { awaiting_confirmation: { deadline_at_ms: result.probation.deadlineAtMs } }),
    },
    text: updateLine(result),
  };
}

/** `confirm`: the end of a probation. */
async function confirmResult(updater: UpdaterApi): Promise<CommandResult> {
  const r = await updater.confirm();
  return {
    json: { version: r.version, confirmed: r.confirmed },
    text: r.confirmed
      ? `confirmed ${r.version ?? ''}: no longer on probation`
      : `nothing on probation (installed ${r.version ?? 'nothing'})`,
  };
}

/** `status`: what is installed and where the live set is. */
async function statusResult(updater: UpdaterApi, dir: string): Promise<CommandResult> {
  const s = await updater.status();
  return {
    json: {
      installed_version: s.installedVersion,
      highest_accepted_version: s.highestAcceptedVersion,
      can_roll_back: s.canRollBack,
      last_error: s.lastError,
      // The one documented way to find the live set, whatever the swap strategy.
      current_path: await resolveCurrentSet(dir),
      probation: probationJson(s.probation),
      bad_versions: s.badVersions.map((b) => ({
        version: b.version,
        reason: b.reason,
        at_ms: b.atMs,
      })),
    },
    text:
      `installed ${s.installedVersion ?? 'nothing'}, highest accepted ` +
      `${s.highestAcceptedVersion ?? 'none'}, can roll back: ${s.canRollBack ? 'yes' : 'no'}` +
      (s.probation === null ? '' : `, on probation (${s.probation.mode})`) +
      (s.lastError === null ? '' : `, last error ${s.lastError.code}`),
  };
}

/** `rollback`: the version now live. */
async function rollbackResult(updater: UpdaterApi): Promise<CommandResult> {
  const r = await updater.rollback();
  return { json: { version: r.version }, text: `rolled back to ${r.version ?? 'nothing'}` };
}

/** `verify`: no drift, or the Drift refusal with its report. */
async function verifyResult(updater: UpdaterApi): Promise<CommandResult> {
  const report = await updater.verify();
  const json = { version: report.version, drift: report.drift };
  if (!report.ok) throw new Drift(json);
  return { json, text: `verified ${report.version ?? ''}: no drift` };
}

/** Runs one command of the updater and shapes its result. */
export function execute(
  command: Command,
  updater: UpdaterApi,
  dir: string,
): Promise<CommandResult> {
  switch (command) {
    case 'check':
      return checkResult(updater);
    case 'update':
      return updateResult(updater);
    case 'confirm':
      return confirmResult(updater);
    case 'status':
      return statusResult(updater, dir);
    case 'rollback':
      return rollbackResult(updater);
    case 'verify':
      return verifyResult(updater);
  }
}
