/**
 * The persisted updater state (one JSON file, replaced atomically). What must survive a
 * restart: the rollback floor, the digest accepted per version (equivocation), the installed
 * and the previous set, and since answer format 2 (docs/PROTOCOL.md §2.7.5) the newest trusted
 * key set, the retired keyids and the freshness floor. Validated on load: a damaged file is
 * STATE_CORRUPT, never guessed at. A schema 1 file (written before format 2) loads with no
 * trusted key set (§2.7.7); every write is schema 2.
 */
import compare from 'semver/functions/compare.js';
import gt from 'semver/functions/gt.js';
import { MAX_RETIRED_KEYIDS } from '#protocol/key-chain.js';
import { keySetPayload, parseKeySet, type KeySet, type KeySetPayload } from '#protocol/key-set.js';
import { isStrictSemver, SHA256_HEX } from '#protocol/manifest.js';
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
   * new name, so the switch to it is as atomic as an update (docs/UPDATER.md §3, Repair).
   */
  readonly dir?: string;
  readonly version: string;
  readonly artifacts: readonly InstalledArtifact[];
}

/** The newest trusted key set (docs/PROTOCOL.md §2.7.4) and the keys rotations dropped. */
export interface TrustedKeys {
  /** The key set in its wire form, as signed (parsed again with `trustedKeySet`). */
  readonly keySet: KeySetPayload;
  /** Keyids retired by rotations, newest last, at most MAX_RETIRED_KEYIDS (names KEY_RETIRED). */
  readonly retired: readonly string[];
}

/** The highest freshness sequence accepted and the release digest it named (§2.7.5). */
export interface FreshnessFloor {
  readonly sequence: number;
  readonly releaseSha256: string;
}

export interface UpdaterState {
  readonly schema: 2;
  readonly highestAcceptedVersion: string | null;
  /** registry_version -> payload SHA-256 of the format 1 manifest accepted for it. */
  readonly acceptedDigests: Readonly<Record<string, string>>;
  /** registry_version -> release digest of the format 2 release accepted for it. */
  readonly releaseDigests: Readonly<Record<string, string>>;
  /** The newest trusted key set; null until the first format 2 answer is accepted. */
  readonly trust: TrustedKeys | null;
  /** Null until a format 2 answer is accepted, and after nothing else. */
  readonly freshness: FreshnessFloor | null;
  readonly installed: InstalledSet | null;
  readonly previous: InstalledSet | null;
  readonly lastCheckAtMs: number | null;
  readonly lastSuccessAtMs: number | null;
  readonly lastError: { readonly code: UpdateErrorCode; readonly message: string } | null;
  // --- health check (health-state.ts): probation and bad versions; `health` absent = empty ---
  readonly health: HealthState;
}

export const EMPTY_STATE: UpdaterState = Object.freeze({
  schema: 2,
  highestAcceptedVersion: null,
  acceptedDigests: {},
  releaseDigests: {},
  trust: null,
  freshness: null,
  installed: null,
  previous: null,
  lastCheckAtMs: null,
  lastSuccessAtMs: null,
  lastError: null,
  health: EMPTY_HEALTH,
});

/** Bounds each digest history so the state file cannot grow without end. */
export const MAX_ACCEPTED_DIGESTS = 1000;

/**
 * A digest history within MAX_ACCEPTED_DIGESTS: the oldest versions go first (they are under
 * the rollback floor, so refused as ROLLBACK anyway). Returns a new object.
 */
export function boundDigests(digests: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = { ...digests };
  const versions = Object.keys(out);
  if (versions.length > MAX_ACCEPTED_DIGESTS) {
    versions.sort(compare);
    for (const old of versions.slice(0, versions.length - MAX_ACCEPTED_DIGESTS)) delete out[old];
  }
  return out;
}

/** The trusted key set, parsed (the state was validated on load, so this cannot fail). */
export function trustedKeySet(trust: TrustedKeys): KeySet {
  return parseKeySet(new TextEncoder().encode(JSON.stringify(trust.keySet)));
}

/** The state form of a key set and its retired keyids. */
export function trustedKeysOf(keySet: KeySet, retired: readonly string[]): TrustedKeys {
  return { keySet: keySetPayload(keySet), retired: retired.slice(-MAX_RETIRED_KEYIDS) };
}

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
export function setDir(set: Pick<InstalledSet, 'setId' | 'dir'>): string {
  return set.dir ?? set.setId;
}

function parseDigests(value: unknown, key: string): Record<string, string> {
  if (!isObject(value)) corrupt(`${key} is not an object`);
  const out: Record<string, string> = {};
  for (const [version, digest] of Object.entries(value)) {
    if (!isStrictSemver(version) || typeof digest !== 'string' || !SHA256_HEX.test(digest)) {
      corrupt(`${key} has a bad entry`);
    }
    out[version] = digest;
  }
  return out;
}

function parseTrust(value: unknown): TrustedKeys | null {
  if (value === null) return null;
  if (!isObject(value)) corrupt('trust is not an object');
  const { keySet, retired } = value;
  let payload: KeySetPayload;
  try {
    payload = keySetPayload(parseKeySet(new TextEncoder().encode(JSON.stringify(keySet))));
  } catch (cause) {
    throw new UpdateError('STATE_CORRUPT', 'state file: trust.keySet is not a key set', { cause });
  }
  if (!Array.isArray(retired) || retired.length > MAX_RETIRED_KEYIDS) {
    corrupt(`trust.retired is not a list of at most ${MAX_RETIRED_KEYIDS} keyids`);
  }
  for (const id of retired) {
    if (typeof id !== 'string' || !SHA256_HEX.test(id)) corrupt('trust.retired has a bad keyid');
  }
  return { keySet: payload, retired: retired as string[] };
}

function parseFloor(value: unknown): FreshnessFloor | null {
  if (value === null) return null;
  if (!isObject(value)) corrupt('freshness is not an object');
  const { sequence, releaseSha256 } = value;
  if (typeof sequence !== 'number' || !Number.isSafeInteger(sequence) || sequence < 1) {
    corrupt('freshness.sequence is not a positive integer');
  }
  if (typeof releaseSha256 !== 'string' || !SHA256_HEX.test(releaseSha256)) {
    corrupt('freshness.releaseSha256 is bad');
  }
  return { sequence, releaseSha256 };
}

/**
 * Parses and validates state file bytes. Schema 1 (format 1 installs) loads with no trusted
 * key set, no freshness floor and no release digests (docs/PROTOCOL.md §2.7.7).
 */
export function parseState(bytes: Uint8Array): UpdaterState {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (cause) {
    throw new UpdateError('STATE_CORRUPT', 'state file is not UTF-8 JSON', { cause });
  }
  if (!isObject(json) || (json['schema'] !== 1 && json['schema'] !== 2)) {
    corrupt('unknown schema');
  }
  const schema2 = json['schema'] === 2;
  const highest = json['highestAcceptedVersion'];
  if (highest !== null && (typeof highest !== 'string' || !isStrictSemver(highest))) {
    corrupt('highestAcceptedVersion is bad');
  }
  const lastError = json['lastError'];
  let parsedError: UpdaterState['lastError'] = null;
  if (lastError !== null) {
    if (!isObject(lastError)) corrupt('lastError is bad');
    const { code, message } = lastError;
    if (typeof code !== 'string' || typeof message !== 'string') corrupt('lastError is bad');
    parsedError = { code: code as UpdateErrorCode, message };
  }
  const trust = schema2 ? parseTrust(json['trust']) : null;
  const freshness = schema2 ? parseFloor(json['freshness']) : null;
  if (freshness !== null && trust === null) corrupt('a freshness floor without a key set');
  return {
    schema: 2,
    highestAcceptedVersion: highest,
    acceptedDigests: parseDigests(json['acceptedDigests'], 'acceptedDigests'),
    releaseDigests: schema2 ? parseDigests(json['releaseDigests'], 'releaseDigests') : {},
    trust,
    freshness,
    installed: parseSet(json['installed'], 'installed'),
    previous: parseSet(json['previous'], 'previous'),
    lastCheckAtMs: optionalMs(json['lastCheckAtMs'], 'lastCheckAtMs'),
    lastSuccessAtMs: optionalMs(json['lastSuccessAtMs'], 'lastSuccessAtMs'),
    lastError: parsedError,
    health: parseHealth(json['health']),
  };
}

/**
 * `next` with the rollback floor, the digest histories and the trust of `current` kept where
 * they are newer or unknown to `next`. A commit journal holds the state computed when the
 * commit began; if a later check accepted a newer version (or key set, or freshness
 * statement) before the journal was replayed, replaying it must not lower the floor, forget a
 * digest or go back to an older key set (TUF: trusted metadata only moves forward).
 */
export function keepFloor(next: UpdaterState, current: UpdaterState): UpdaterState {
  const a = next.highestAcceptedVersion;
  const b = current.highestAcceptedVersion;
  const highest = a === null ? b : b === null ? a : gt(b, a) ? b : a;
  const { trust, freshness } = newerTrust(next, current);
  return {
    ...next,
    highestAcceptedVersion: highest,
    acceptedDigests: boundDigests({ ...current.acceptedDigests, ...next.acceptedDigests }),
    releaseDigests: boundDigests({ ...current.releaseDigests, ...next.releaseDigests }),
    trust,
    freshness,
    health: keepBadVersions(next.health, current.health),
  };
}

/** The newer key set with its freshness floor; for one key set, the higher floor. */
function newerTrust(
  next: UpdaterState,
  current: UpdaterState,
): Pick<UpdaterState, 'trust' | 'freshness'> {
  const versionOf = (s: UpdaterState): number => s.trust?.keySet.version ?? 0;
  if (versionOf(current) > versionOf(next)) {
    return { trust: current.trust, freshness: current.freshness };
  }
  if (versionOf(current) < versionOf(next)) return { trust: next.trust, freshness: next.freshness };
  const x = next.freshness;
  const y = current.freshness;
  const freshness = x === null ? y : y === null ? x : y.sequence > x.sequence ? y : x;
  return { trust: next.trust, freshness };
}

/** The exact bytes written for a state. */
export function encodeState(state: UpdaterState): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(state)}\n`);
}
