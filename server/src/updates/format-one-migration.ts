/**
 * A data directory from before format 2 (docs/PROTOCOL.md §2.7.7): its releases/ holds format 1
 * envelopes signed by the node key. Each is checked under that key (the root of key set 1),
 * re-signed as a format 2 release with the same artifacts by the release key, and stored with
 * the original envelope kept for old clients. Idempotent: a crash midway redoes the rest.
 */
import {
  encodeRelease,
  envelopeFromJson,
  MANIFEST_PAYLOAD_TYPE,
  parseManifest,
  RELEASE_PAYLOAD_TYPE,
  signDsse,
  verifyRole,
} from '#protocol';
import {
  releaseOf,
  ReleaseStoreError,
  type FormatOneRelease,
  type ReleaseStore,
} from './publish/release-store.js';
import { RELEASE_KEY_FILE, type TrustKeys } from './keys/trust-keys.js';

export async function migrateFormatOne(
  found: readonly FormatOneRelease[],
  keys: TrustKeys,
  releases: ReleaseStore,
): Promise<void> {
  const first = keys.chain.first;
  for (const { entry, bytes } of found) {
    if (keys.release === undefined || first === undefined) {
      throw new ReleaseStoreError(
        `${entry} is a format 1 release: ${RELEASE_KEY_FILE} must be in the data directory to migrate it`,
      );
    }
    let manifest;
    try {
      const env = envelopeFromJson(JSON.parse(bytes.toString('utf8')), entry);
      verifyRole(env, first.root, MANIFEST_PAYLOAD_TYPE, entry);
      manifest = parseManifest(env.payload);
    } catch (cause) {
      throw new ReleaseStoreError(`stored release ${entry} is unusable`, { cause });
    }
    const payload = encodeRelease({
      registry_version: manifest.registry_version,
      artifacts: manifest.artifacts,
    });
    await releases.save(releaseOf(signDsse(payload, RELEASE_PAYLOAD_TYPE, [keys.release]), bytes));
  }
}
