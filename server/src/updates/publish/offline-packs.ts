/**
 * Packs planned offline (docs/PROTOCOL.md §2.7.8, §2.8): `sign-release` gives its release the
 * table the server's own signing path would, with the publisher's `addPacks` and rules, but
 * hashes each new pack instead of storing it (the server builds it from the same bytes at
 * publish). The packs of the release the fleet holds are kept when its bundle is given.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import {
  envelopeFromJson,
  parseRelease,
  RELEASE_PAYLOAD_TYPE,
  type ManifestArtifact,
} from '#protocol';
import { readRegularFile } from '../../platform/regular-file.js';
import { HttpError } from '../../http/http-error.js';
import type { BlobInfo } from '../../store/blob-store.js';
import { addPacks } from './pack-builder.js';
import type { PackArtifacts, PublishArtifact, PutArtifact } from './release-builder.js';

const sha256Of = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/**
 * `put` hashes each artifact (as `hashArtifact` does) and remembers where its bytes are;
 * `pack` then reads the members back to hash the new packs.
 */
export function offlinePacking(
  hash: (artifact: PublishArtifact) => Promise<BlobInfo>,
  previous: readonly ManifestArtifact[] | undefined,
): { put: PutArtifact; pack: PackArtifacts } {
  const sources = new Map<string, PublishArtifact>();
  const put: PutArtifact = async (artifact) => {
    const info = await hash(artifact);
    sources.set(info.sha256, artifact);
    return info;
  };
  const read = async (sha256: string): Promise<Uint8Array> => {
    const source = sources.get(sha256);
    if (source === undefined) throw new Error(`no artifact hashed to ${sha256}`);
    const bytes = 'content' in source ? source.content : await readFile(source.path);
    // A file changed since it was hashed would sign a pack the server cannot rebuild.
    if (sha256Of(bytes) !== sha256) {
      throw new HttpError(400, 'ARTIFACT_MISMATCH', `${source.name} changed while it was signed`);
    }
    return bytes;
  };
  const pack: PackArtifacts = (artifacts, urlOf) =>
    addPacks(artifacts, previous, {
      read,
      put: (bytes) => Promise.resolve({ sha256: sha256Of(bytes), size: bytes.length }),
      urlOf,
    });
  return { put, pack };
}

/**
 * The artifacts of the release in a bundle (`--previous-bundle`: the release the fleet holds),
 * read for its packs only. Its signatures are not checked here: the server refuses a kept
 * pack it does not hold, or one without the member at the signed offset.
 */
export async function previousArtifacts(file: string): Promise<readonly ManifestArtifact[]> {
  try {
    const parsed = envelopeFromJson(JSON.parse(await readRegularFile(file)), 'bundle');
    if (parsed.payloadType !== RELEASE_PAYLOAD_TYPE) throw new Error('not a release');
    return parseRelease(parsed.payload).artifacts;
  } catch (cause) {
    throw new HttpError(400, 'INVALID_BUNDLE', `${file} is not a release bundle`, { cause });
  }
}
