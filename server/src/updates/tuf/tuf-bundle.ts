/**
 * The one-request check (docs/PROTOCOL.md §TUF repository, One request): the body of
 * `GET /api/updates/manifest?format=tuf`, the current timestamp, snapshot and targets files
 * by their repository names, each as base64 of its exact bytes (timestamp's length and hashes
 * of snapshot, and snapshot's of targets, are over those bytes), with the newest root version
 * so that a client at that root needs no request for the next one. The format 1 fields stay
 * at the top while the format 1 gate allows them (format-one-gate.ts).
 */
import { gzipSync } from 'node:zlib';
import type { DsseEnvelope } from '#protocol';

/** The value of `?format=` that asks for the bundle, and of its `format` field. */
export const BUNDLE_FORMAT = 'tuf';

/** What one check needs when no root rotated (TufRepository.top). */
export interface TopMetadata {
  /** The highest N of the `N.root.json` the repository serves. */
  readonly rootVersion: number;
  /** Repository file name (`timestamp.json`, `N.snapshot.json`, `N.targets.json`) -> bytes. */
  readonly files: readonly (readonly [string, Uint8Array])[];
}

/** One bundle answer, each form made on first call and then kept (as ManifestAnswer). */
export interface BundleAnswer {
  readonly length: number;
  bytes(): Buffer;
  gzip(): Buffer;
}

/** The bundle's bytes: format 1 fields (when given) first, as the format 2 answer has them. */
export function encodeBundle(top: TopMetadata, legacy: DsseEnvelope | undefined): Buffer {
  const metadata: Record<string, string> = {};
  for (const [name, bytes] of top.files) metadata[name] = Buffer.from(bytes).toString('base64');
  const body = {
    ok: true,
    ...(legacy === undefined
      ? {}
      : {
          payloadType: legacy.payloadType,
          payload: legacy.payload,
          signatures: legacy.signatures.map((s) => ({ keyid: s.keyid, sig: s.sig })),
        }),
    format: BUNDLE_FORMAT,
    root_version: top.rootVersion,
    metadata,
  };
  return Buffer.from(JSON.stringify(body));
}

/** zlib level of a bundle's gzip form: the base64 members barely shrink past the default. */
const BUNDLE_GZIP_LEVEL = 6;

export function bundleAnswer(bytes: Buffer): BundleAnswer {
  let coded: Buffer | undefined;
  return {
    length: bytes.length,
    bytes: () => bytes,
    gzip: () => (coded ??= gzipSync(bytes, { level: BUNDLE_GZIP_LEVEL })),
  };
}
