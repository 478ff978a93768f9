/**
 * The one-request check (docs/PROTOCOL.md §TUF repository, One request): the body of
 * `GET /api/updates/manifest?format=tuf`, the current timestamp, snapshot and targets files
 * by their repository names, each as base64 of its exact bytes (timestamp's length and hashes
 * of snapshot, and snapshot's of targets, are over those bytes), with the newest root version
 * so that a client at that root needs no request for the next one. The format 1 fields stay
 * at the top while the format 1 gate allows them (format-one-gate.ts).
 */
import type { DsseEnvelope } from '#protocol';
import type { GzipFrame } from '../gzip-frame.js';
import { answerOf } from '../manifest-answers.js';

const TIMESTAMP_NAME = 'timestamp.json';

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

/**
 * The bundle around its timestamp: `head + base64(timestamp) + tail`. The timestamp is the
 * last member, so the head (format 1 fields, snapshot, targets: nearly all the bytes, megabytes
 * at 10,000 targets) is encoded and deflated once per frame, and a nonce answer encodes and
 * deflates only its own timestamp (as the format 2 answer does, gzip-frame.ts).
 */
export interface BundleFrame {
  readonly head: Buffer;
  readonly tail: Buffer;
  gzip?: GzipFrame;
}

export function bundleFrame(top: TopMetadata, legacy: DsseEnvelope | undefined): BundleFrame {
  const metadata: Record<string, string> = {};
  for (const [name, bytes] of top.files) {
    if (name !== TIMESTAMP_NAME) metadata[name] = Buffer.from(bytes).toString('base64');
  }
  metadata[TIMESTAMP_NAME] = '';
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
  // The text ends `"timestamp.json":""}}`: cut inside the empty string.
  const text = JSON.stringify(body);
  return { head: Buffer.from(text.slice(0, -3)), tail: Buffer.from(text.slice(-3)) };
}

/** The answer with `timestamp` in `frame`; base64 needs no JSON escaping. */
export function bundleAnswer(frame: BundleFrame, timestamp: Uint8Array): BundleAnswer {
  return answerOf(frame, Buffer.from(Buffer.from(timestamp).toString('base64')));
}
