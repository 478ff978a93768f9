/**
 * The format 1 envelope (docs/PROTOCOL.md §2.1, §2.2) that a format 2 answer carries for
 * clients that predate format 2 (§2.7.7): today's manifest with today's expiry, signed by the
 * node key, which those clients pin. Signed once per publish, so it expires as it always did.
 */
import {
  encodeManifest,
  MANIFEST_PAYLOAD_TYPE,
  signDsse,
  type Release,
  type Signer,
} from '#protocol';

export const DEFAULT_EXPIRES_IN_S = 7 * 24 * 3600;
export const MAX_EXPIRES_IN_S = 366 * 24 * 3600;

/** The envelope JSON bytes, exactly as a format 1 server stored them. */
export function signLegacyEnvelope(
  release: Release,
  root: Signer,
  nowMs: number,
  expiresInS: number,
): Buffer {
  const payload = encodeManifest({
    registry_version: release.registry_version,
    issued_at: new Date(nowMs).toISOString(),
    expires_at: new Date(nowMs + expiresInS * 1000).toISOString(),
    artifacts: release.artifacts,
    ...(release.notes === undefined ? {} : { notes: release.notes }),
  });
  return Buffer.from(
    JSON.stringify({ ok: true, ...signDsse(payload, MANIFEST_PAYLOAD_TYPE, [root]) }),
  );
}
