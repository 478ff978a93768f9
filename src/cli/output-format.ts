/**
 * How the CLI prints its results (docs/UPDATER.md §7): the snake_case JSON of --json and the
 * one human line of each outcome. run-cli.ts decides what to print; this file, how.
 */
import type { UpdateErrorDetails } from '#core/errors.js';
import type { PlanSummary } from '#core/events.js';
import type { UpdateResult, UpdaterStatus } from '#core/updater-api.js';
import { formatBytes } from './progress-bar.js';

export type Json = Record<string, unknown>;

/** A plan as --json prints it (snake_case keys). */
export function planJson(plan: PlanSummary): Json {
  return {
    fetch: plan.fetch,
    reuse: plan.reuse,
    remove: plan.remove,
    bytes_to_fetch: plan.bytesToFetch,
    bytes_to_reuse: plan.bytesToReuse,
    artifacts: plan.artifacts.map((a) => ({
      name: a.name,
      size: a.size,
      method: a.method,
      fetch_bytes: a.fetchBytes,
      reused_bytes: a.reusedBytes,
      index_bytes: a.indexBytes,
    })),
  };
}

/** A human line for a plan. */
export function planLine(plan: PlanSummary): string {
  return (
    `${plan.fetch.length} to fetch (${formatBytes(plan.bytesToFetch)}), ` +
    `${plan.reuse.length} reused (${formatBytes(plan.bytesToReuse)}), ${plan.remove.length} removed`
  );
}

/** An error's details as indented `name: value` lines under its `error CODE:` line. */
export function detailLines(details: UpdateErrorDetails): string {
  return Object.entries(details)
    .map(([name, value]) => {
      const text = typeof value === 'object' ? value.join(', ') || 'none' : String(value);
      return `  ${name}: ${text}\n`;
    })
    .join('');
}

export function probationJson(p: UpdaterStatus['probation']): Json | null {
  return p === null
    ? null
    : {
        version: p.version,
        mode: p.mode,
        started_at_ms: p.startedAtMs,
        deadline_at_ms: p.deadlineAtMs,
      };
}

/** A human line for an update result. */
export function updateLine(result: UpdateResult): string {
  if (result.repaired !== undefined) {
    return (
      `repaired ${result.version ?? ''}: ${result.repaired.length} file(s) restored, ` +
      `${formatBytes(result.bytesDownloaded)} downloaded`
    );
  }
  if (result.skipped !== undefined) {
    return `skipped ${result.skipped.version}: ${result.skipped.reason}`;
  }
  if (result.outcome !== 'applied') return `up to date at ${result.version ?? ''}`;
  const line = `applied ${result.version ?? ''}: ${formatBytes(result.bytesDownloaded)} downloaded`;
  return result.probation === undefined
    ? line
    : `${line}; run \`confirm\` before ${new Date(result.probation.deadlineAtMs).toISOString()}`;
}
