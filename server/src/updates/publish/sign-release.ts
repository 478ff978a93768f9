/**
 * `npm run server -- sign-release` (docs/PROTOCOL.md §2.7.8): signs a release on a machine that
 * holds release keys and nothing else of the server. A new bundle hashes every regular file
 * under FOLDER (with the chunk indexes and the table of packs the server will build from the
 * same bytes); an existing bundle gets the signatures of more release keys (k of n signers in
 * turn), its payload, and so its table, unchanged.
 */
import { readRegularFile } from '../../platform/regular-file.js';
import {
  addSignatures,
  envelopeFromJson,
  parseRelease,
  RELEASE_PAYLOAD_TYPE,
  releaseDigest,
  signDsse,
  type DsseEnvelope,
} from '#protocol';
import { writeFileAtomic } from '#shared/atomic-file.js';
import { HttpError } from '../../http/http-error.js';
import type { RandomSource } from '../../platform/random.js';
import { listFolder } from './publish-folder.js';
import { buildRelease, hashArtifact } from './release-builder.js';
import { offlinePacking, previousArtifacts } from './offline-packs.js';
import { heldKey, type HeldKey } from '../keys/trust-keys.js';

export interface SignReleaseOptions {
  /** Files holding release secret keys (the key file format of node-key.json). */
  readonly releaseKeyFiles: readonly string[];
  /** Where the bundle is written (default: `--bundle`, updated in place). */
  readonly out: string | undefined;
  /** Add signatures to this bundle instead of signing a new release. */
  readonly bundle: string | undefined;
  readonly version: string | undefined;
  readonly folder: string | undefined;
  readonly artifactBaseUrl: string | undefined;
  /**
   * The bundle of the release the fleet holds (`--previous-bundle`): its packs are kept for
   * the members still in this release (docs/PROTOCOL.md §2.8). Without it, packed afresh.
   */
  readonly previousBundle?: string | undefined;
}

export interface SignReleaseResult {
  readonly ok: true;
  readonly registry_version: string;
  readonly release_sha256: string;
  readonly keyids: readonly string[];
  readonly out: string;
}

async function keysFrom(files: readonly string[], random: RandomSource): Promise<HeldKey[]> {
  const keys: HeldKey[] = [];
  for (const file of files) {
    const key = await heldKey('.', file, random, false);
    if (key === undefined) throw new HttpError(400, 'BAD_KEY', `${file} does not exist`);
    keys.push(key);
  }
  return keys;
}

/** Adds the signatures of `signers` to the bundle in `file`; its payload stays as it is. */
async function coSign(file: string, signers: readonly HeldKey[]): Promise<DsseEnvelope> {
  const text = await readRegularFile(file);
  let parsed;
  try {
    parsed = envelopeFromJson(JSON.parse(text), 'bundle');
  } catch (cause) {
    throw new HttpError(400, 'INVALID_BUNDLE', `${file} is not a release bundle`, { cause });
  }
  if (parsed.payloadType !== RELEASE_PAYLOAD_TYPE) {
    throw new HttpError(400, 'INVALID_BUNDLE', `${file} is not a release bundle`);
  }
  const { payloadType, payload, signatures } = JSON.parse(text) as DsseEnvelope;
  return addSignatures({ payloadType, payload, signatures }, signers);
}

/** A new release of FOLDER, with the table of packs the server's own path would write. */
async function signNew(
  options: SignReleaseOptions,
  signers: readonly HeldKey[],
): Promise<DsseEnvelope> {
  if (options.version === undefined || options.folder === undefined) {
    throw new HttpError(400, 'INVALID_VERSION', 'a new bundle needs --version and a FOLDER');
  }
  const previous =
    options.previousBundle === undefined
      ? undefined
      : await previousArtifacts(options.previousBundle);
  // docs/PROTOCOL.md §2.8: same planner and rules; the new packs are hashed, not stored.
  const { put, pack } = offlinePacking(hashArtifact, previous);
  const { payload } = await buildRelease(
    {
      registry_version: options.version,
      artifacts: await listFolder(options.folder),
      ...(options.artifactBaseUrl === undefined
        ? {}
        : { artifact_base_url: options.artifactBaseUrl }),
    },
    put,
    pack,
  );
  return signDsse(payload, RELEASE_PAYLOAD_TYPE, signers);
}

/** Signs (or co-signs) a release and writes the bundle atomically. */
export async function signRelease(
  options: SignReleaseOptions,
  random: RandomSource,
): Promise<SignReleaseResult> {
  const signers = await keysFrom(options.releaseKeyFiles, random);
  const envelope =
    options.bundle === undefined
      ? await signNew(options, signers)
      : await coSign(options.bundle, signers);
  const out = options.out ?? options.bundle;
  if (out === undefined)
    throw new HttpError(400, 'INVALID_BUNDLE', 'sign-release needs --out FILE');
  await writeFileAtomic(out, `${JSON.stringify(envelope, null, 2)}\n`);
  const payload = new Uint8Array(Buffer.from(envelope.payload, 'base64'));
  return {
    ok: true,
    registry_version: parseRelease(payload).registry_version,
    release_sha256: releaseDigest(payload),
    keyids: envelope.signatures.map((s) => s.keyid),
    out,
  };
}
