/**
 * The words of each card state and of each result line, in one place (docs/DESKTOP.md
 * "Updates"), as refusal-words.ts is for errors: a rollback reads as a rollback, a first
 * install as an install, and a cancel the user chose as neutral news, never as a warning.
 */
import type { ErrorKind, StatusNotice, StatusState } from '#preload/ipc-contract.js';

/** What a headline needs besides the state. */
export interface HeadlineFacts {
  readonly installedVersion: string | null;
  readonly targetVersion: string | null;
  readonly skippedVersion: string | null;
  /** The kind of the failure, in state 'failed'. */
  readonly errorKind?: ErrorKind | null;
}

function failedHeadline(target: string | null, kind: ErrorKind | null): string {
  if (target !== null) return `The update to ${target} stopped.`;
  if (kind === 'security') return 'The last update was refused for your safety.';
  if (kind === 'network') return 'The last check could not reach the registry.';
  return 'The last check failed.';
}

/** The card's one sentence for a state. */
export function headlineFor(state: StatusState, facts: HeadlineFacts): string {
  const target = facts.targetVersion;
  switch (state) {
    case 'idle':
      return facts.installedVersion === null
        ? 'Nothing installed yet.'
        : `Version ${facts.installedVersion} is installed.`;
    case 'checking':
      return 'Checking for updates…';
    case 'available':
      return target === null ? 'An update is available.' : `Version ${target} is available.`;
    case 'downloading':
      return target === null ? 'Downloading the update…' : `Downloading version ${target}…`;
    case 'verifying':
      return 'Verifying the installed files…';
    case 'installing':
      return target === null ? 'Installing the update…' : `Installing version ${target}…`;
    case 'probation':
      return target === null
        ? 'Checking that the new version works…'
        : `Checking that version ${target} works…`;
    case 'up-to-date':
      return facts.installedVersion === null
        ? 'Nothing to install yet.'
        : `You’re up to date (${facts.installedVersion}).`;
    case 'rolled-back':
      return facts.installedVersion === null
        ? 'Rolled back.'
        : `Rolled back to ${facts.installedVersion}.`;
    case 'paused':
      return 'Automatic updates are paused.';
    case 'failed':
      return failedHeadline(target, facts.errorKind ?? null);
  }
}

/** "Installed 1.0.0." for a first install, "Updated from 1.0.0 to 1.1.0." otherwise. */
export function appliedNotice(from: string | null, to: string): StatusNotice {
  return from === null
    ? { kind: 'installed', words: `Installed version ${to}.` }
    : { kind: 'updated', words: `Updated from ${from} to ${to}.` };
}

export function rolledBackNotice(from: string | null, to: string | null): StatusNotice {
  const left = from ?? 'the newer version';
  const now = to ?? 'nothing installed';
  return {
    kind: 'rolled-back',
    words: `Rolled back from ${left} to ${now}. ${left} is skipped until a newer version appears.`,
  };
}

export function revertedNotice(version: string, restored: string | null): StatusNotice {
  return {
    kind: 'reverted',
    words: `Version ${version} failed its health check; ${restored ?? 'the previous state'} is back.`,
  };
}

export function cancelledNotice(target: string | null, keptBytes: number): StatusNotice {
  const what =
    target === null ? 'The download was stopped.' : `The download of ${target} was stopped.`;
  const kept =
    keptBytes > 0 ? ` ${sizeWords(keptBytes)} are kept; the next check resumes from there.` : '';
  return { kind: 'cancelled', words: `${what}${kept}` };
}

export function upToDateNotice(installed: string | null, skipped: string | null): StatusNotice {
  if (skipped !== null) {
    return {
      kind: 'skipped',
      words: `Version ${skipped} is available but skipped because you rolled back from it. It will not be installed; a newer version will be.`,
    };
  }
  return {
    kind: 'up-to-date',
    words: installed === null ? 'The registry has nothing to install yet.' : `You’re up to date.`,
  };
}

export function healthSkippedNotice(version: string): StatusNotice {
  return {
    kind: 'skipped',
    words: `Version ${version} failed its health check here before, so it is not installed.`,
  };
}

/** "12.3 MB": decimal units, as download sizes are usually told. */
export function sizeWords(bytes: number): string {
  if (bytes < 1000) return `${bytes} bytes`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit] ?? 'TB'}`;
}
