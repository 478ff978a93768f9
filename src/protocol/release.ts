/**
 * The release (docs/PROTOCOL.md §2.7.2): what a version is, signed by the release keys,
 * usually offline. It has no time in it: a release does not expire (the freshness statement
 * says how current it is), and signing the same release again gives the same bytes, so its
 * digest names it for good.
 *
 *   {"registry_version": "1.2.0", "artifacts": [{"name", "size", "sha256", "url"}, ...]}
 */
import { createHash } from 'node:crypto';
import { parseJsonObject, requiredField } from './json-object.js';
import {
  isStrictSemver,
  notesProblem,
  parseArtifactList,
  wireArtifacts,
  type ListOptions,
  type ManifestArtifact,
} from './manifest.js';
import { parsePackTable } from './pack-ref.js';
import { ProtocolError } from './protocol-error.js';

export const RELEASE_PAYLOAD_TYPE = 'application/vnd.updates.release+json';

export interface Release {
  readonly registry_version: string;
  readonly artifacts: readonly ManifestArtifact[];
  /** The release notes, Markdown, signed with the release (§2.2 `notes`); optional. */
  readonly notes?: string;
}

/**
 * Parses release payload bytes: the artifact list follows the manifest's rules (§2.2, names,
 * digests, order). Unknown fields are ignored (signed, so a newer publisher may add them).
 */
export function parseRelease(bytes: Uint8Array, options: ListOptions = {}): Release {
  const o = parseJsonObject(bytes, 'release');
  const version = requiredField(o, 'registry_version', 'release');
  if (typeof version !== 'string' || !isStrictSemver(version)) {
    throw new ProtocolError('BAD_VERSION', 'release registry_version is not a strict semver');
  }
  const release = {
    registry_version: version,
    artifacts: parseArtifactList(
      requiredField(o, 'artifacts', 'release'),
      options,
      parsePackTable(o['packs']),
    ),
  };
  if (!Object.hasOwn(o, 'notes')) return release;
  const problem = notesProblem(o['notes']);
  if (problem !== null) throw new ProtocolError('MANIFEST_MALFORMED', `release ${problem}`);
  return { ...release, notes: o['notes'] as string };
}

/** Serialises a release to the exact bytes that get signed. */
export function encodeRelease(release: Release): Uint8Array {
  const { registry_version, artifacts, notes } = release;
  const body = { registry_version, ...wireArtifacts(artifacts) };
  return new TextEncoder().encode(JSON.stringify(notes === undefined ? body : { ...body, notes }));
}

/** The release digest: lowercase hex SHA-256 of the payload bytes (what freshness names). */
export function releaseDigest(payload: Uint8Array): string {
  return createHash('sha256').update(payload).digest('hex');
}
