/**
 * The health-check block of the persisted state (`UpdaterState.health`, docs/UPDATER.md §3
 * "Health check and automatic revert"): the probation of a set just installed, and the
 * versions that failed their check (never installed again). Kept apart from state.ts so the
 * state's own schema can evolve without touching it: a state file without `health` (written
 * before it existed) reads as EMPTY_HEALTH.
 */
import compare from 'semver/functions/compare.js';
import { isStrictSemver, SHA256_HEX } from '#protocol/manifest.js';
import { UpdateError } from './errors.js';

/** How a set on probation is judged: a check the updater runs, or the consumer's confirm(). */
export type HealthMode = 'check' | 'confirm';

/**
 * A set committed but not yet judged healthy. Written in the same journaled commit that makes
 * the set live, so a crash at any point leaves either no probation (the old set is live) or
 * this record (the new set is live): the next run finishes the decision.
 */
export interface Probation {
  readonly version: string;
  /** The installed set it is about (its setId; a repair keeps the setId, so the probation). */
  readonly setId: string;
  readonly mode: HealthMode;
  readonly startedAtMs: number;
  /** confirm mode: the deadline for confirm(); null for a check (its timeout is per attempt). */
  readonly deadlineAtMs: number | null;
  /**
   * Set once a check failed and before the revert starts: a crash from then on reverts at the
   * next run without running the check again (a flaky check cannot pass on the second try).
   */
  readonly failed?: string;
}

/** A version that failed its health check and was reverted: skipped by check and update. */
export interface BadVersion {
  readonly setId: string;
  readonly reason: string;
  readonly atMs: number;
}

export interface HealthState {
  readonly probation: Probation | null;
  /** registry_version -> why it is bad; at most MAX_BAD_VERSIONS, the oldest dropped. */
  readonly badVersions: Readonly<Record<string, BadVersion>>;
}

export const EMPTY_HEALTH: HealthState = Object.freeze({ probation: null, badVersions: {} });

/** Bounds the bad-version list (each entry is under the rollback floor soon anyway). */
export const MAX_BAD_VERSIONS = 100;
/** Bounds a recorded reason (a health command's stderr tail ends up here). */
export const MAX_REASON_CHARS = 500;

function corrupt(message: string): never {
  throw new UpdateError('STATE_CORRUPT', `state file: health.${message}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isMs(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

function parseProbation(value: unknown): Probation | null {
  if (value === null || value === undefined) return null;
  if (!isObject(value)) corrupt('probation is not an object');
  const { version, setId, mode, startedAtMs, deadlineAtMs, failed } = value;
  if (typeof version !== 'string' || !isStrictSemver(version)) corrupt('probation.version');
  if (typeof setId !== 'string' || !SHA256_HEX.test(setId)) corrupt('probation.setId');
  if (mode !== 'check' && mode !== 'confirm') corrupt('probation.mode');
  if (!isMs(startedAtMs)) corrupt('probation.startedAtMs');
  if (deadlineAtMs !== null && !isMs(deadlineAtMs)) corrupt('probation.deadlineAtMs');
  if (failed !== undefined && typeof failed !== 'string') corrupt('probation.failed');
  return {
    version,
    setId,
    mode,
    startedAtMs,
    deadlineAtMs,
    ...(failed === undefined ? {} : { failed }),
  };
}

/** Validates the `health` value of a state file; absent means EMPTY_HEALTH. */
export function parseHealth(value: unknown): HealthState {
  if (value === undefined) return EMPTY_HEALTH;
  if (!isObject(value)) corrupt('is not an object');
  const bad = value['badVersions'];
  if (!isObject(bad)) corrupt('badVersions is not an object');
  const badVersions: Record<string, BadVersion> = {};
  for (const [version, entry] of Object.entries(bad)) {
    if (!isStrictSemver(version) || !isObject(entry)) corrupt('badVersions has a bad entry');
    const { setId, reason, atMs } = entry;
    if (typeof setId !== 'string' || !SHA256_HEX.test(setId)) corrupt('badVersions.setId');
    if (typeof reason !== 'string' || !isMs(atMs)) corrupt('badVersions has a bad entry');
    badVersions[version] = { setId, reason, atMs };
  }
  return { probation: parseProbation(value['probation']), badVersions };
}

/** `bad` with `version` added, bounded (the lowest versions go first). */
export function withBadVersion(
  bad: Readonly<Record<string, BadVersion>>,
  version: string,
  entry: BadVersion,
): Record<string, BadVersion> {
  const out: Record<string, BadVersion> = {
    ...bad,
    [version]: { ...entry, reason: entry.reason.slice(0, MAX_REASON_CHARS) },
  };
  const versions = Object.keys(out);
  if (versions.length > MAX_BAD_VERSIONS) {
    versions.sort(compare);
    for (const old of versions.slice(0, versions.length - MAX_BAD_VERSIONS)) delete out[old];
  }
  return out;
}

/**
 * For a journal replayed over a newer state file (state.ts keepFloor): the journal's probation,
 * and the bad versions of both (a version once found bad is never forgotten by a replay).
 */
export function keepBadVersions(next: HealthState, current: HealthState): HealthState {
  let bad: Record<string, BadVersion> = { ...next.badVersions };
  for (const [version, entry] of Object.entries(current.badVersions)) {
    if (bad[version] === undefined) bad = withBadVersion(bad, version, entry);
  }
  return { probation: next.probation, badVersions: bad };
}
