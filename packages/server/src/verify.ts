/**
 * The updater's own manifest verifier (src/core/verify.ts), for QA tests that check what the
 * server signed: the exact bytes of GET /api/updates/manifest against the pinned node_pubkey.
 */
import { DEFAULT_LIMITS } from '../../../src/core/limits.js';
import {
  pinKeys,
  verifyManifest as verifyWithPins,
  type VerifiedManifest,
} from '../../../src/core/verify.js';

export type { VerifiedManifest } from '../../../src/core/verify.js';
export { UpdateError, type UpdateErrorCode } from '../../../src/core/errors.js';

/**
 * Verifies manifest bytes under one or more pinned node public keys (64 lowercase hex each),
 * as the updater does, and returns the parsed manifest. Throws an `UpdateError` whose `code`
 * says why (`SIGNATURE_INVALID`, `UNKNOWN_KEY`, `MANIFEST_MALFORMED`, ...).
 * @example
 *   const res = await fetch(`${server.url}/api/updates/manifest`, { headers: { authorization: `Bearer ${key}` } });
 *   const { manifest } = verifyManifest(new Uint8Array(await res.arrayBuffer()), server.nodePubkey);
 */
export function verifyManifest(
  bytes: Uint8Array,
  nodePubkeys: string | readonly string[],
  options: { readonly maxManifestBytes?: number } = {},
): VerifiedManifest {
  const pins = pinKeys(typeof nodePubkeys === 'string' ? [nodePubkeys] : nodePubkeys);
  return verifyWithPins(bytes, pins, options.maxManifestBytes ?? DEFAULT_LIMITS.maxManifestBytes);
}
