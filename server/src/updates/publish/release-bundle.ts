/**
 * A bundle is a release envelope signed offline by `sign-release` (docs/PROTOCOL.md §2.7.8).
 * Publishing one checks it as a client would (release role of the newest key set, the payload
 * rules) and checks every signed artifact against the bytes that come with it.
 */
import { readRegularFile } from '../../platform/regular-file.js';
import {
  envelopeFromJson,
  keyOwners,
  parseRelease,
  RELEASE_PAYLOAD_TYPE,
  releaseDigest,
  TrustError,
  verifyRole,
  type DsseEnvelope,
  type KeySet,
  type ParsedEnvelope,
  type Release,
} from '#protocol';
import { HttpError } from '../../http/http-error.js';
import type { BlobInfo } from '../../store/blob-store.js';
import { asHttpError, type PublishArtifact } from './release-builder.js';

export interface CheckedBundle {
  readonly envelope: DsseEnvelope;
  readonly release: Release;
  readonly digest: string;
  /** The keyids whose signatures met the threshold. */
  readonly keyids: readonly string[];
}

/** Verifies a release envelope under `keySet`'s release role; refusals keep the protocol code. */
export function verifyRelease(parsed: ParsedEnvelope, keySet: KeySet): readonly string[] {
  try {
    return verifyRole(parsed, keySet.release, RELEASE_PAYLOAD_TYPE, 'release', {
      otherRoles: keyOwners(keySet),
    });
  } catch (error) {
    if (error instanceof TrustError) throw new HttpError(400, error.code, error.message);
    throw error;
  }
}

/** Checks a bundle (the parsed JSON of the file or of the dev route's `bundle` field). */
export function checkBundle(bundle: unknown, keySet: KeySet): CheckedBundle {
  let parsed: ParsedEnvelope;
  try {
    parsed = envelopeFromJson(bundle, 'bundle');
  } catch (cause) {
    throw new HttpError(400, 'INVALID_BUNDLE', 'the bundle is not a signed release envelope', {
      cause,
    });
  }
  const keyids = verifyRelease(parsed, keySet);
  let release: Release;
  try {
    release = parseRelease(parsed.payload);
  } catch (error) {
    throw asHttpError(error);
  }
  const o = bundle as DsseEnvelope;
  return {
    envelope: { payloadType: o.payloadType, payload: o.payload, signatures: o.signatures },
    release,
    digest: releaseDigest(parsed.payload),
    keyids,
  };
}

/** Reads a bundle file (the `publish --bundle` CLI); a file that is not JSON is INVALID_BUNDLE. */
export async function readBundleFile(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readRegularFile(path)) as unknown;
  } catch (cause) {
    throw new HttpError(400, 'INVALID_BUNDLE', `${path} is not a readable bundle`, { cause });
  }
}

/**
 * Every signed artifact must come with its exact bytes, or already be stored (a re-signature
 * needs no upload); nothing may come that the release does not sign.
 */
export async function matchArtifacts(
  release: Release,
  given: readonly PublishArtifact[],
  stored: ReadonlyMap<string, BlobInfo>,
  sizeOf: (sha256: string) => Promise<number | undefined>,
): Promise<void> {
  const signed = new Map(release.artifacts.map((a) => [a.name, a]));
  for (const a of given) {
    if (!signed.has(a.name)) {
      throw new HttpError(400, 'ARTIFACT_MISMATCH', `${a.name} is not in the signed release`);
    }
  }
  for (const a of release.artifacts) {
    const blob = stored.get(a.name);
    if (blob !== undefined) {
      if (blob.sha256 !== a.sha256 || blob.size !== a.size) {
        throw new HttpError(400, 'ARTIFACT_MISMATCH', `${a.name} differs from the signed bytes`);
      }
    } else if ((await sizeOf(a.sha256)) !== a.size) {
      throw new HttpError(400, 'ARTIFACT_MISMATCH', `no bytes were given for ${a.name}`);
    }
    // A signed chunk index must be servable: built from the same bytes, it is stored now.
    const index = a.chunk_index;
    if (index !== undefined && (await sizeOf(index.sha256)) !== index.size) {
      throw new HttpError(400, 'ARTIFACT_MISMATCH', `the chunk index of ${a.name} differs`);
    }
  }
}
