/**
 * Policy over a verified manifest, applied before any plan or byte transfer: limits, rollback
 * against the persisted highest-ever-accepted version (TUF spec §5.4.3 style: monotonic, not
 * just "newer than installed"), equivocation, and for format 1 freshness (expires_at,
 * issued_at; format 2 checked its freshness statement in verification, docs/PROTOCOL.md
 * §2.7.5). Names and digests were already checked by the payload parsers inside verify.ts.
 */
import gt from 'semver/functions/gt.js';
import lt from 'semver/functions/lt.js';
import { resolveArtifactUrl, type ManifestArtifact } from '#protocol/manifest.js';
import { localClock, UpdateError } from '../errors.js';
import type { Limits } from '../limits.js';
import { boundDigests, type InstalledArtifact, type UpdaterState } from '../state.js';
import { fromProtocolError, type VerifiedManifest } from './verify.js';

// A plain relative path (RFC 3986 §4.2: no colon, space or control character, so no scheme
// even after WHATWG's stripping) always resolves against the http(s) base URL and cannot fail
// to parse; anything else, absolute URLs included, goes through the full URL parser, so a URL
// that would fail at pull time is refused here, before any byte moves. Cheap for 10,000 entries.
const PLAIN_RELATIVE = /^[A-Za-z0-9._~%/-]+$/;
// An absolute http(s) URL whose path is plain in the same sense: the path cannot make the
// parse fail, so the URL parses exactly when its scheme and authority followed by "/" do. Those
// are parsed once per authority (10,000 artifacts on one origin: one parse, not 10,000).
const PLAIN_ABSOLUTE = /^(https?:\/\/[^/?#\\]*)\/[A-Za-z0-9._~%/-]*$/i;
// The path part of PLAIN_ABSOLUTE alone, matched from a given index (sticky): an entry on the
// origin of the entry before it is checked without a capture (no allocation per artifact).
const PLAIN_PATH_FROM = /\/[A-Za-z0-9._~%/-]*$/y;

/** Whether `url` is `origin` followed by a plain path: what PLAIN_ABSOLUTE would say of it. */
function onOrigin(url: string, origin: string): boolean {
  if (!url.startsWith(origin)) return false;
  PLAIN_PATH_FROM.lastIndex = origin.length;
  return PLAIN_PATH_FROM.test(url);
}

/**
 * Throws the first refusal, in this order: limits, rollback, equivocation, then for format 1
 * expiry and future. Rollback comes before expiry so a replayed old manifest is named for
 * what it is.
 */
export function checkPolicy(
  verified: VerifiedManifest,
  state: UpdaterState,
  nowMs: number,
  limits: Limits,
  baseUrl: string,
): void {
  const m = verified.manifest;
  checkArtifacts(m.artifacts, limits, baseUrl);
  // TUF: the floor is the one still vouched for by the current root (tuf-floor.ts), not the
  // highest ever accepted, which a stolen key could have raised for ever.
  const highest =
    verified.format === 'tuf' ? (verified.tufFloor ?? null) : state.highestAcceptedVersion;
  if (highest !== null && lt(m.registry_version, highest)) {
    throw new UpdateError(
      'ROLLBACK',
      `registry_version ${m.registry_version} is older than ${highest}, already accepted`,
    );
  }
  // TUF: one targets version per version number is TUF's own rule (TUF spec §5.6.4); the same
  // registry_version re-signed in a newer targets version is the normal re-signing.
  if (verified.format === 'tuf') return;
  if (verified.format === 2) {
    checkReleaseEquivocation(verified, state);
    return;
  }
  checkFormatOne(verified, state, nowMs, limits);
}

/** The limits on the artifact list, and that every artifact URL will resolve at pull time. */
function checkArtifacts(
  artifacts: readonly ManifestArtifact[],
  limits: Limits,
  baseUrl: string,
): void {
  if (artifacts.length > limits.maxArtifacts) {
    throw new UpdateError(
      'TOO_MANY_ARTIFACTS',
      `${artifacts.length} artifacts exceed the limit of ${limits.maxArtifacts}`,
    );
  }
  const goodOrigins = new Set<string>();
  // The origin of the last absolute entry that passed: a release's entries share one or two.
  let lastOrigin: string | undefined;
  for (const a of artifacts) {
    if (a.size > limits.maxArtifactBytes) {
      throw new UpdateError(
        'ARTIFACT_TOO_LARGE',
        `${a.name} is ${a.size} bytes, over the limit of ${limits.maxArtifactBytes}`,
      );
    }
    if (PLAIN_RELATIVE.test(a.url)) continue;
    if (lastOrigin !== undefined && onOrigin(a.url, lastOrigin)) continue;
    const origin = PLAIN_ABSOLUTE.exec(a.url)?.[1];
    if (origin !== undefined && goodOrigins.has(origin)) {
      lastOrigin = origin;
      continue;
    }
    try {
      resolveArtifactUrl(baseUrl, origin === undefined ? a.url : `${origin}/`);
    } catch (error) {
      throw fromProtocolError(error);
    }
    if (origin !== undefined) {
      goodOrigins.add(origin);
      lastOrigin = origin;
    }
  }
}

/** Format 1's own checks: one manifest per registry_version, then expiry and issue time. */
function checkFormatOne(
  verified: VerifiedManifest,
  state: UpdaterState,
  nowMs: number,
  limits: Limits,
): void {
  const m = verified.manifest;
  const seen = state.acceptedDigests[m.registry_version];
  if (seen !== undefined && seen !== verified.setId) {
    throw new UpdateError(
      'EQUIVOCATION',
      `a different manifest was already accepted for ${m.registry_version}`,
    );
  }
  if (m.expiresAtMs <= nowMs) {
    throw new UpdateError(
      'MANIFEST_EXPIRED',
      `manifest expired at ${m.expires_at}; ${localClock(nowMs)}`,
    );
  }
  if (m.issuedAtMs > nowMs + limits.maxFutureSkewMs) {
    throw new UpdateError(
      'MANIFEST_FROM_FUTURE',
      `manifest issued_at ${m.issued_at} is ahead; ${localClock(nowMs)}`,
    );
  }
}

/**
 * Format 2 (docs/PROTOCOL.md §2.7.5 step 6): one release digest per registry_version (a new
 * freshness statement over the same release is normal). A version installed under format 1
 * (§2.7.7) has no release digest yet: its format 2 release must carry the same artifact list
 * (name, size, SHA-256) as the set installed from it.
 */
function checkReleaseEquivocation(verified: VerifiedManifest, state: UpdaterState): void {
  const version = verified.manifest.registry_version;
  const seen = state.releaseDigests[version];
  if (seen !== undefined) {
    if (seen !== verified.setId) {
      throw new UpdateError(
        'EQUIVOCATION',
        `a different release was already accepted for ${version}`,
      );
    }
    return;
  }
  for (const set of [state.installed, state.previous]) {
    if (set === null || set.version !== version) continue;
    if (state.acceptedDigests[version] !== set.setId) continue;
    if (!sameArtifacts(set.artifacts, verified.manifest.artifacts)) {
      throw new UpdateError(
        'EQUIVOCATION',
        `the release of ${version} lists other files than the format 1 manifest installed`,
      );
    }
  }
}

function sameArtifacts(
  installed: readonly InstalledArtifact[],
  release: readonly ManifestArtifact[],
): boolean {
  if (installed.length !== release.length) return false;
  const key = (a: InstalledArtifact): string => `${a.name}\n${a.size}\n${a.sha256}`;
  const want = new Set(installed.map(key));
  return release.every((a) => want.has(key(a)));
}

/**
 * The state after accepting `verified`: raises the rollback floor and records its digest; for
 * format 2 also the newest trusted key set, the retired keyids and the freshness floor, in the
 * same state (one atomic write, docs/PROTOCOL.md §2.7.5).
 */
export function recordAcceptance(state: UpdaterState, verified: VerifiedManifest): UpdaterState {
  const version = verified.manifest.registry_version;
  const highest = state.highestAcceptedVersion;
  const floor = highest === null || gt(version, highest) ? version : highest;
  if (verified.format === 'tuf') {
    // The floors live in the TUF metadata; highestAcceptedVersion only reports what TUF took.
    return {
      ...state,
      highestAcceptedVersion: version,
      releaseDigests: boundDigests({ ...state.releaseDigests, [version]: verified.setId }),
    };
  }
  if (verified.trust === undefined) {
    return {
      ...state,
      highestAcceptedVersion: floor,
      acceptedDigests: boundDigests({
        ...state.acceptedDigests,
        [version]: verified.setId,
      }),
    };
  }
  return {
    ...state,
    highestAcceptedVersion: floor,
    releaseDigests: boundDigests({ ...state.releaseDigests, [version]: verified.setId }),
    trust: verified.trust.trust,
    freshness: verified.trust.floor,
  };
}

/** True when this version's digest is already recorded (no new audit entry then). */
export function alreadyRecorded(state: UpdaterState, verified: VerifiedManifest): boolean {
  const digests = verified.format === 1 ? state.acceptedDigests : state.releaseDigests;
  return digests[verified.manifest.registry_version] === verified.setId;
}
