/**
 * Trusted TUF targets -> the one shape planning accepts (docs/PROTOCOL.md §TUF repository,
 * "Client"). Each target becomes a manifest artifact `{...custom, name, size, sha256, url}`
 * read by the SAME artifact parser as a manifest's (#protocol/manifest.js), so every product
 * field a target's `custom` carries (`chunk_index`, `pack` with `pack_offset` into the table of
 * packs of the targets' own `custom.packs`, and whatever the parser learns later) works with no
 * TUF-specific code; the signed length and SHA-256 always win over `custom`.
 */
import { createHash } from 'node:crypto';
import { compareNames } from '#protocol/artifact-name.js';
import {
  isStrictSemver,
  notesProblem,
  parseArtifactList,
  type ParsedManifest,
} from '#protocol/manifest.js';
import { parsePackTable } from '#protocol/pack-ref.js';
import { isJsonObject, type Envelope, type TargetFile, type Targets } from '#protocol/tuf/index.js';
import { UpdateError } from '../errors.js';
import { fromProtocolError } from '../wire-errors.js';
import type { TrustedRelease } from '../tuf/index.js';
import { releaseBytes } from './tuf-release.js';
import type { VerifiedManifest } from './verified-manifest.js';

/** What turning trusted targets into a VerifiedManifest needs besides them. */
export interface TufManifestInput {
  /** Top-level targets: its `custom` carries the product's fields. */
  readonly targets: Envelope<Targets>;
  /**
   * The release the delegation walk formed (release-walk.ts): its files are the artifacts and
   * its bytes (tuf-release.ts) the set's. Absent: top-level targets alone.
   */
  readonly release?: TrustedRelease;
  /** The consistent-snapshot URL of a target (TufUpdater `targetUrl`). */
  readonly urlOf: (target: TargetFile) => string;
  /** The trusted timestamp's expiry: the freshness the manifest reports. */
  readonly freshUntilMs: number;
  readonly nowMs: number;
  /**
   * The digest of targets bytes whose list already passed the artifact parser (the installed
   * set's id): the same bytes give the same verdict, so their entries are not walked again
   * (docs/UPDATER.md §3, No-op runs).
   */
  readonly checkedDigest?: string | undefined;
}

/** What the product reads from the targets metadata's own `custom` (§TUF repository). */
export interface TargetsCustom {
  readonly registryVersion: string;
  /** The release notes signed with it (docs/PROTOCOL.md §2.2), when it has them. */
  readonly notes?: string;
}

/**
 * `custom.registry_version` (strict semver) and `custom.notes` (optional, judged as the
 * manifest's `notes` are) of targets metadata; anything else there is MANIFEST_MALFORMED.
 */
export function targetsCustomOf(targets: Envelope<Targets>): TargetsCustom {
  // The strict parser's one reading of the signed bytes, kept as is (no second parse).
  const custom = isJsonObject(targets.signed.custom) ? targets.signed.custom : undefined;
  const version = custom?.['registry_version'];
  if (typeof version !== 'string' || !isStrictSemver(version)) {
    throw new UpdateError(
      'MANIFEST_MALFORMED',
      'targets metadata carries no strict semver custom.registry_version',
    );
  }
  const notes = custom?.['notes'];
  if (notes === undefined) return { registryVersion: version };
  const problem = notesProblem(notes);
  if (problem !== null) throw new UpdateError('MANIFEST_MALFORMED', `targets custom.${problem}`);
  return { registryVersion: version, notes: notes as string };
}

/** `custom.registry_version` of targets metadata, or MANIFEST_MALFORMED. */
export function registryVersionOf(targets: Envelope<Targets>): string {
  return targetsCustomOf(targets).registryVersion;
}

/**
 * The artifact entry of one target, before the shared parser checks it. The table of packs is
 * top-level targets' own (`custom.packs`, docs/PROTOCOL.md §2.8): a delegated role's `pack`
 * index would name a row of a table that role did not sign, so its targets are fetched whole.
 */
function artifactOf(target: TargetFile, url: string, topLevel: boolean): Record<string, unknown> {
  const sha256 = target.hashes.get('sha256');
  if (sha256 === undefined) {
    throw new UpdateError('BAD_DIGEST', `target ${target.path} has no sha256 hash`);
  }
  const entry: Record<string, unknown> = {
    ...target.custom,
    name: target.path,
    size: target.length,
    sha256,
    url,
  };
  if (topLevel) return entry;
  const { pack: _pack, pack_offset: _offset, ...whole } = entry;
  return whole;
}

/**
 * The VerifiedManifest of a trusted release: set id and equivocation digest = SHA-256 of the
 * set's bytes (the targets bytes when no role delegates), which `verify` re-checks later. Only the caller (tuf-step.ts,
 * after a full TUF refresh) may call it: the brand says "checked".
 */
export function verifiedFromTargets(input: TufManifestInput): VerifiedManifest {
  const { targets } = input;
  const { registryVersion, notes } = targetsCustomOf(targets);
  const envelope = input.release === undefined ? targets.raw : releaseBytes(input.release);
  const setId = createHash('sha256').update(envelope).digest('hex');
  const files = [...(input.release?.files ?? targets.signed.targets.values())];
  // Canonical JSON writes the targets in code point order, which is the names' order: sort
  // only targets written otherwise.
  if (
    !files.every((t, i) => i === 0 || compareNames((files[i - 1] as TargetFile).path, t.path) < 0)
  ) {
    files.sort((a, b) => compareNames(a.path, b.path));
  }
  const top = targets.signed.targets;
  // The release walk hands on the very TargetFile its role listed: identity says top-level.
  const entries = files.map((t) => artifactOf(t, input.urlOf(t), top.get(t.path) === t));
  let artifacts;
  try {
    const custom = isJsonObject(targets.signed.custom) ? targets.signed.custom : undefined;
    const packs = parsePackTable(custom?.['packs'], 'targets custom.packs');
    const listChecked = input.checkedDigest === setId;
    artifacts = parseArtifactList(entries, { listChecked }, packs);
  } catch (error) {
    throw fromProtocolError(error);
  }
  const manifest: ParsedManifest = {
    registry_version: registryVersion,
    artifacts,
    ...(notes === undefined ? {} : { notes }),
    issued_at: new Date(input.nowMs).toISOString(),
    expires_at: new Date(input.freshUntilMs).toISOString(),
    issuedAtMs: input.nowMs,
    expiresAtMs: input.freshUntilMs,
  };
  return {
    format: 'tuf',
    manifest,
    setId,
    keyid: targets.signatures[0]?.keyid ?? '',
    envelope,
    // The caller sets the floor (tuf-floor.ts), which needs this manifest's digest.
    tufFloor: null,
  } as VerifiedManifest;
}
