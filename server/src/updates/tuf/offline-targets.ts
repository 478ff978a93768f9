/**
 * Targets signed offline (docs/PROTOCOL.md §TUF repository, Roles and keys): the release keys
 * never reach the server, so `sign-release` builds targets metadata from a release bundle and
 * each holder of a release key adds a signature in turn (k of n, TUF spec §4.3), and
 * `publish --tuf-targets FILE` installs it once it meets the threshold of the newest root's
 * targets role, names the current release, and is newer than the targets served.
 */
import { join } from 'node:path';
import {
  envelopeFromJson,
  parseRelease,
  RELEASE_PAYLOAD_TYPE,
  tuf,
  type DsseEnvelope,
} from '#protocol';
import { writeFileAtomic } from '#shared/atomic-file.js';
import { HttpError } from '../../http/http-error.js';
import { highestVersion, readMetadata, TUF_DIR, versionedName } from './tuf-layout.js';
import { toTufSigner, type HexSigner } from './tuf-root.js';
import { targetsFor, type TargetsContent } from './tuf-targets.js';

/** Targets version `version` for the release a bundle signs, signed by `signers`. */
export function targetsFromBundle(
  bundle: DsseEnvelope,
  version: number,
  signers: readonly HexSigner[],
  nowMs: number,
): Uint8Array {
  const parsed = envelopeFromJson(bundle, 'bundle');
  if (parsed.payloadType !== RELEASE_PAYLOAD_TYPE) {
    throw new HttpError(400, 'INVALID_BUNDLE', 'the bundle is not a release');
  }
  const release = parseRelease(parsed.payload);
  return tuf.signMetadata(targetsFor(release, version, nowMs), signers.map(toTufSigner));
}

/** Adds the signatures of `signers` to targets metadata bytes (a key never signs twice). */
export function coSignTargets(bytes: Uint8Array, signers: readonly HexSigner[]): Uint8Array {
  const document = invalidUnless(() => {
    tuf.parseEnvelope(bytes, 'targets');
    return tuf.parseStrictJson(bytes) as tuf.JsonObject;
  });
  const signed = document['signed'] as tuf.JsonObject;
  const signatures = (document['signatures'] as readonly tuf.JsonObject[] | undefined) ?? [];
  return tuf.addSignatures({ signed, signatures }, signers.map(toTufSigner));
}

/**
 * Installs offline-signed targets into `<dataDir>/tuf/`. Refuses (400) metadata that is not
 * targets, 409 `VERSION_NOT_INCREASING` a version not above the newest, `THRESHOLD_NOT_MET`
 * one the newest root's targets role does not sign, `INVALID_BUNDLE` one that does not
 * describe `release` exactly (its version, artifacts, notes and table of packs).
 */
export async function installTargets(
  dataDir: string,
  bytes: Uint8Array,
  release: TargetsContent | undefined,
): Promise<number> {
  const dir = join(dataDir, TUF_DIR);
  const envelope = invalidUnless(() => tuf.parseEnvelope(bytes, 'targets'));
  const rootVersion = await highestVersion(dir, 'root');
  const rootBytes = await readMetadata(dir, versionedName(rootVersion, 'root'));
  if (rootBytes === undefined) throw new HttpError(409, 'NO_RELEASE', 'no TUF root is signed yet');
  const root = tuf.parseEnvelope(rootBytes, 'root').signed;
  const latest = await highestVersion(dir, 'targets');
  if (envelope.signed.version <= latest) {
    throw new HttpError(409, 'VERSION_NOT_INCREASING', `targets ${latest} is already served`);
  }
  try {
    tuf.requireThreshold(envelope, root.keys, root.roles.targets, 'targets');
  } catch (cause) {
    throw new HttpError(400, 'THRESHOLD_NOT_MET', (cause as Error).message, { cause });
  }
  if (release !== undefined) requireSameContent(envelope.signedBytes, release);
  await writeFileAtomic(join(dir, versionedName(envelope.signed.version, 'targets')), bytes);
  return envelope.signed.version;
}

/**
 * The targets and product fields that `signedBytes` sign must be those the release makes
 * (tuf-targets.ts), so clients are never sent to a target, a digest or a pack that the
 * release does not hold. The version, expiry and any delegations are the signers' own.
 */
function requireSameContent(signedBytes: Uint8Array, release: TargetsContent): void {
  const offered = tuf.parseStrictJson(signedBytes) as tuf.JsonObject;
  const expected = targetsFor(release, 0, 0);
  for (const field of ['targets', 'custom'] as const) {
    const same = Buffer.from(canonical(offered[field])).equals(canonical(expected[field]));
    if (!same) {
      throw new HttpError(
        400,
        'INVALID_BUNDLE',
        `the targets do not describe release ${release.registry_version}: their "${field}" differ from the release's`,
      );
    }
  }
}

const canonical = (value: tuf.JsonValue | undefined): Uint8Array =>
  tuf.canonicalJson(value ?? null);

function invalidUnless<T>(read: () => T): T {
  try {
    return read();
  } catch (cause) {
    throw new HttpError(400, 'INVALID_BUNDLE', 'not TUF targets metadata', { cause });
  }
}
