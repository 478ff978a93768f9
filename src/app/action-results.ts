/**
 * The words the desktop app answers its actions with (docs/DESKTOP.md "Updates"): a refusal
 * from the core in its own words, a busy refusal, and the verify report as a sentence that
 * names the files that drifted and says what to do.
 */
import { isUpdateError } from '#core/errors.js';
import type { VerifyReport } from '#core/updater-api.js';
import type { ActionResult } from '#preload/ipc-contract.js';
import { describeError } from './status/refusal-words.js';

/** At most this many drifted files are named; the rest are counted. */
const NAMED_DRIFT = 5;

/** A failed action: the core's own code and words, or `fallback` for anything else. */
export function failed(error: unknown, fallback: string): ActionResult {
  if (isUpdateError(error)) return { ok: false, error: describeError(error.code, error.message) };
  return { ok: false, error: { ...describeError('IO', fallback), words: fallback } };
}

/** Refuses an action while an update runs; `what` completes "then …". */
export function busy(what: string): ActionResult {
  return {
    ok: false,
    error: describeError('BUSY', `An update is running. Wait for it or cancel it, then ${what}.`),
  };
}

/** The verify report as the app shows it. */
export function verifyResult(report: VerifyReport): ActionResult {
  const version = report.version ?? 'the installed set';
  if (report.ok) {
    return { ok: true, words: `Every installed file of ${version} matches its signed checksum.` };
  }
  const shown = report.drift.slice(0, NAMED_DRIFT).map((d) => `${d.name} (${d.problem})`);
  const more =
    report.drift.length > shown.length ? `, and ${report.drift.length - shown.length} more` : '';
  const count =
    report.drift.length === 1 ? '1 file differs' : `${report.drift.length} files differ`;
  return {
    ok: false,
    error: {
      code: 'DRIFT',
      message: `${count} from ${version}`,
      words: `${count} from the signed ${version}: ${shown.join(', ')}${more}.`,
      advice: 'Check for updates now: it restores them from verified copies.',
      kind: 'local',
    },
  };
}
