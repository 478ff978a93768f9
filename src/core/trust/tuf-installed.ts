/**
 * `verify` of a set installed under TUF: its targets metadata (kept as the set's signed bytes,
 * tuf-release.ts) must still meet the threshold of the trusted root's targets role, each
 * delegated role that of its delegators, and the release they form is the list the files are
 * compared with. No expiry: the targets that vouched for a set may have expired since, the
 * files have not changed because of it.
 */
import { parseEnvelope } from '#protocol/tuf/index.js';
import { createHash } from 'node:crypto';
import { UpdateError } from '../errors.js';
import { fromTufError } from './tuf-errors.js';
import { tufConfig, type TufClientConfig } from '../tuf/index.js';
import { verifiedFromTargets } from './tuf-manifest.js';
import { isReleaseRecord, storedRelease, storedTopTargets } from './tuf-release.js';
import type { InstalledRecord } from './verify.js';

/** True when `bytes` read as TUF metadata rather than a DSSE envelope (format 1/2). */
export function looksLikeTuf(bytes: Uint8Array): boolean {
  // A DSSE envelope's members are payloadType, payload and signatures; TUF's signed and
  // signatures. Only the shape is looked at here: the verifiers decide.
  const head = Buffer.from(bytes.subarray(0, 64)).toString('utf8');
  return isReleaseRecord(bytes) || /^\s*\{\s*"signatures"|^\s*\{\s*"signed"/.test(head);
}

/** Re-verifies installed targets `bytes` under the stored trusted root `rootBytes`. */
export async function verifyStoredTargets(
  bytes: Uint8Array,
  rootBytes: Uint8Array | undefined,
  nowMs: number,
  config?: Partial<TufClientConfig>,
): Promise<InstalledRecord> {
  if (rootBytes === undefined) {
    throw new UpdateError('STATE_CORRUPT', 'a TUF set is installed but no TUF root is trusted');
  }
  try {
    const root = parseEnvelope(rootBytes, 'root').signed;
    const release = await storedRelease(bytes, root, tufConfig(config));
    const verified = verifiedFromTargets({
      targets: storedTopTargets(bytes),
      release,
      urlOf: (target) => target.path,
      freshUntilMs: nowMs + 1,
      nowMs,
    });
    return {
      version: verified.manifest.registry_version,
      artifacts: verified.manifest.artifacts,
      digest: createHash('sha256').update(bytes).digest('hex'),
    };
  } catch (error) {
    throw fromTufError(error, nowMs);
  }
}
