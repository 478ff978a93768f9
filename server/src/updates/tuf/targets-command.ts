/**
 * The TUF half of `sign-release` (docs/PROTOCOL.md §TUF repository, Roles and keys):
 * `--tuf-targets FILE --tuf-targets-version N` signs targets version N for the bundle just
 * signed; `--tuf-targets FILE` alone adds this signer's signatures to the targets in FILE
 * (k of n, as the bundle is co-signed). Only public key ids are reported.
 */
import { readFile } from 'node:fs/promises';
import type { DsseEnvelope } from '#protocol';
import { tuf } from '#protocol';
import { writeFileAtomic } from '#shared/atomic-file.js';
import { HttpError } from '../../http/http-error.js';
import type { RandomSource } from '../../platform/random.js';
import { heldKey, type HeldKey } from '../keys/trust-keys.js';
import { coSignTargets, targetsFromBundle } from './offline-targets.js';

export interface SignTargetsOptions {
  readonly releaseKeyFiles: readonly string[];
  /** The bundle the targets describe (read after sign-release wrote it). */
  readonly bundleFile: string;
  readonly targetsFile: string;
  /** Set: sign a new targets version; unset: co-sign the targets in `targetsFile`. */
  readonly version: number | undefined;
}

export interface SignTargetsResult {
  readonly file: string;
  readonly version: number;
  readonly keyids: readonly string[];
}

export async function signTargetsFile(
  options: SignTargetsOptions,
  random: RandomSource,
  nowMs: number,
): Promise<SignTargetsResult> {
  const signers: HeldKey[] = [];
  for (const file of options.releaseKeyFiles) {
    const key = await heldKey('.', file, random, false);
    if (key === undefined) throw new HttpError(400, 'BAD_KEY', `${file} does not exist`);
    signers.push(key);
  }
  let bytes: Uint8Array;
  if (options.version !== undefined) {
    const bundle = JSON.parse(await readFile(options.bundleFile, 'utf8')) as DsseEnvelope;
    bytes = targetsFromBundle(bundle, options.version, signers, nowMs);
  } else {
    bytes = coSignTargets(await readFile(options.targetsFile), signers);
  }
  await writeFileAtomic(options.targetsFile, bytes);
  const envelope = tuf.parseEnvelope(bytes, 'targets');
  return {
    file: options.targetsFile,
    version: envelope.signed.version,
    keyids: envelope.signatures.map((s) => s.keyid),
  };
}
