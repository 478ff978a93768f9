/**
 * The persisted updater state (one JSON file, replaced atomically). What must survive a
 * restart: the rollback floor, the digest accepted per version (equivocation), the installed
 * and the previous set. Validated on load: a damaged file is STATE_CORRUPT, never guessed at.
 */
import semver from 'semver';
import { isStrictSemver, SHA256_HEX } from '../protocol/manifest.js';
import { UpdateError, type UpdateErrorCode } from './errors.js';
import { EMPTY_HEALTH, keepBadVersions, parseHealth, type HealthState } from './health-state.js';

export interface InstalledArtifact {
  readonly name: string;
  readonly size: number;
  readonly sha256: string;
}

export interface InstalledSet {
  /** The payload SHA-256 of the manifest it came from (and its directory, unless `dir`). */
  readonly setId: string;
  /**
   * Directory name under sets/ when it is not `setId`: a repaired set is staged afresh under a
   * new name, so the switch to it is as atomic as an update (docs/UPDATER.md §Repair).
   */
  readonly dir?: string;
  readonly version: string;
  readonly artifacts: readonly InstalledArtifact[];
}

export interface UpdaterState {
  readonly schema: 1;
  readonly highestAcceptedVersion: string | null;
  /** registry_version -> payload SHA-256 of the manifest accepted for it. */
  readonly acceptedDigests: Readonly<Record<string, string>>;
  readonly installed: InstalledSet | null;
  readonly previous: InstalledSet | null;
  readonly lastCheckAtMs: number | null;
  readonly lastSuccessAtMs: number | null;
  readonly lastError: { readonly code: UpdateErrorCode; readonly message: string } | null;
  // --- health check (health-state.ts): probation and bad versions; `health` absent = empty ---
  readonly health: HealthState;
}

export const EMPTY_STATE: UpdaterState = Object.freeze({
  schema: 1,
  highestAcceptedVersion: null,
  acceptedDigests: {},
  installed: null,
  previous: null,
  lastCheckAtMs: null,
  lastSuccessAtMs: null,
  lastError: null,
  health: EMPTY_HEALTH,
});

/** Bounds the digest history so the state file cannot grow without end. */
export const MAX_ACCEPTED_DIGESTS = 1000;

function corrupt(message: string): never {
  throw new UpdateError('STATE_CORRUPT', `state file: ${message}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalMs(value: unknown, key: string): number | null {
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) corrupt(`${key} is not a time`);
  return value;
}

function parseSet(value: unknown, key: string): InstalledSet | null {
  if (value === null) return null;
  if (!isObject(value)) corrupt(`${key} is not an object`);
  const { setId, version, artifacts, dir } = value;
  if (typeof setId !== 'string' || !SHA256_HEX.test(setId)) corrupt(`${key}.setId is bad`);
  if (dir !== undefined && (typeof dir !== 'string' || !SHA256_HEX.test(dir))) {
    corrupt(`${key}.dir is bad`);
  }
  if (typeof version !== 'string' || !isStrictSemver(version)) corrupt(`${key}.version is bad`);
  if (!Array.isArray(artifacts)) corrupt(`${key}.artifacts is not an array`);
  const list = artifacts.map((a: unknown): InstalledArtifact => {
    if (!isObject(a)) corrupt(`${key}.artifacts has a non-object`);
    const { name, size, sha256 } = a;
    if (typeof name !== 'string' || typeof size !== 'number' || typeof sha256 !== 'string') {
      corrupt(`${key}.artifacts has a bad entry`);
    }
    if (!Number.isSafeInteger(size) || size < 0 || !SHA256_HEX.test(sha256)) {
      corrupt(`${key}.artifacts has a bad entry`);
    }
    return { name, size, sha256 };
  });
  return { setId, version, artifacts: list, ...(dir === undefined ? {} : { dir }) };
}

/** The directory of a set under sets/. */
export function setDir(set: InstalledSet): string {
  return set.dir ?? set.setId;
}

/** Parses and validates state file bytes. */
export function parseState(bytes: Uint8Array): UpdaterState {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (cause) {
    throw new UpdateError('STATE_CORRUPT', 'state file is not UTF-8 JSON', { cause });
  }
  if (!isObject(json) || json['schema'] !== 1) corrupt('unknown schema');
  const highest = json['highestAcceptedVersion'];
  if (highest !== null && (typeof highest !== 'string' || !isStrictSemver(highest))) {
    corrupt('highestAcceptedVersion is bad');
  }
  const digests = json['acceptedDigests'];
  if (!isObject(digests)) corrupt('acceptedDigests is not an object');
  const acceptedDigests: Record<string, string> = {};
  for (const [version, digest] of Object.entries(digests)) {
    if (!isStrictSemver(version) || typeof digest !== 'string' || !SHA256_HEX.test(digest)) {
      corrupt('acceptedDigests has a bad entry');
    }
    acceptedDigests[version] = digest;
  }
  const lastError = json['lastError'];
  let parsedError: UpdaterState['lastError'] = null;
  if (lastError !== null) {
    if (!isObject(lastError)) corrupt('lastError is bad');
    const { code, message } = lastError;
    if (typeof code !== 'string' || typeof message !== 'string') corrupt('lastError is bad');
    parsedError = { code: code as UpdateErrorCode, message };
  }
  return {
    schema: 1,
    highestAcceptedVersion: highest,
    acceptedDigests,
    installed: parseSet(json['installed'], 'installed'),
    previous: parseSet(json['previous'], 'previous'),
    lastCheckAtMs: optionalMs(json['lastCheckAtMs'], 'lastCheckAtMs'),
    lastSuccessAtMs: optionalMs(json['lastSuccessAtMs'], 'lastSuccessAtMs'),
    lastError: parsedError,
    health: parseHealth(json['health']),
  };
}

/**
 * `next` with the rollback floor and digest history of `current` kept where they are higher or
 * unknown to `next`. A commit journal holds the state computed when the commit began; if a
 * later check accepted a newer version before the journal was replayed, replaying it must not
 * lower the floor or forget that version's digest (TUF: the floor is monotonic).
 */
export function keepFloor(next: UpdaterState, current: UpdaterState): UpdaterState {
  const a = next.highestAcceptedVersion;
  const b = current.highestAcceptedVersion;
  const highest = a === null ? b : b === null ? a : semver.gt(b, a) ? b : a;
  const digests: Record<string, string> = { ...current.acceptedDigests, ...next.acceptedDigests };
  const versions = Object.keys(digests);
  if (versions.length > MAX_ACCEPTED_DIGESTS) {
    // Same bound as recordAcceptance: the oldest go first (they are under the floor anyway).
    versions.sort(semver.compare);
    for (const old of versions.slice(0, versions.length - MAX_ACCEPTED_DIGESTS)) {
      delete digests[old];
    }
  }
  return {
    ...next,
    highestAcceptedVersion: highest,
    acceptedDigests: digests,
    health: keepBadVersions(next.health, current.health),
  };
}

/** The exact bytes written for a state. */
export function encodeState(state: UpdaterState): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(state)}\n`);
}
