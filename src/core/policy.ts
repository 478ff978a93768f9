/**
 * Policy over a verified manifest, applied before any plan or byte transfer: freshness
 * (expires_at, issued_at), rollback against the persisted highest-ever-accepted version (TUF
 * spec §5.4.3 style: monotonic, not just "newer than installed"), equivocation, and limits.
 * Names and digests were already checked by parseManifest inside verifyManifest.
 */
import semver from 'semver';
import { resolveArtifactUrl } from '../protocol/manifest.js';
import { UpdateError } from './errors.js';
import type { Limits } from './limits.js';
import { MAX_ACCEPTED_DIGESTS, type UpdaterState } from './state.js';
import { fromProtocolError, type VerifiedManifest } from './verify.js';

// A plain relative path (RFC 3986 §4.2: no colon, space or control character, so no scheme
// even after WHATWG's stripping) always resolves against the http(s) base URL and cannot fail
// to parse; anything else, absolute URLs included, goes through the full URL parser, so a URL
// that would fail at pull time is refused here, before any byte moves. Cheap for 10,000 entries.
const PLAIN_RELATIVE = /^[A-Za-z0-9._~%/-]+$/;

/**
 * Throws the first refusal, in this order: limits, rollback, equivocation, expiry, future.
 * Rollback comes before expiry so a replayed old manifest is named for what it is.
 */
export function checkPolicy(
  vm: VerifiedManifest,
  state: UpdaterState,
  nowMs: number,
  limits: Limits,
  baseUrl: string,
): void {
  const m = vm.manifest;
  if (m.artifacts.length > limits.maxArtifacts) {
    throw new UpdateError(
      'TOO_MANY_ARTIFACTS',
      `${m.artifacts.length} artifacts exceed the limit of ${limits.maxArtifacts}`,
    );
  }
  for (const a of m.artifacts) {
    if (a.size > limits.maxArtifactBytes) {
      throw new UpdateError(
        'ARTIFACT_TOO_LARGE',
        `${a.name} is ${a.size} bytes, over the limit of ${limits.maxArtifactBytes}`,
      );
    }
    if (!PLAIN_RELATIVE.test(a.url)) {
      try {
        resolveArtifactUrl(baseUrl, a.url);
      } catch (error) {
        throw fromProtocolError(error);
      }
    }
  }
  const highest = state.highestAcceptedVersion;
  if (highest !== null && semver.lt(m.registry_version, highest)) {
    throw new UpdateError(
      'ROLLBACK',
      `registry_version ${m.registry_version} is older than ${highest}, already accepted`,
    );
  }
  const seen = state.acceptedDigests[m.registry_version];
  if (seen !== undefined && seen !== vm.payloadSha256) {
    throw new UpdateError(
      'EQUIVOCATION',
      `a different manifest was already accepted for ${m.registry_version}`,
    );
  }
  if (m.expiresAtMs <= nowMs) {
    throw new UpdateError('MANIFEST_EXPIRED', `manifest expired at ${m.expires_at}`);
  }
  if (m.issuedAtMs > nowMs + limits.maxFutureSkewMs) {
    throw new UpdateError('MANIFEST_FROM_FUTURE', `manifest issued_at ${m.issued_at} is ahead`);
  }
}

/** The state after accepting `vm`: raises the rollback floor and records its digest. */
export function recordAcceptance(state: UpdaterState, vm: VerifiedManifest): UpdaterState {
  const version = vm.manifest.registry_version;
  const highest = state.highestAcceptedVersion;
  const digests: Record<string, string> = { ...state.acceptedDigests, [version]: vm.payloadSha256 };
  const versions = Object.keys(digests);
  if (versions.length > MAX_ACCEPTED_DIGESTS) {
    // Forget the oldest: versions below the floor are refused as ROLLBACK anyway.
    versions.sort(semver.compare);
    for (const old of versions.slice(0, versions.length - MAX_ACCEPTED_DIGESTS)) {
      delete digests[old];
    }
  }
  return {
    ...state,
    highestAcceptedVersion: highest === null || semver.gt(version, highest) ? version : highest,
    acceptedDigests: digests,
  };
}
