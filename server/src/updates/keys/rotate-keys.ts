/**
 * `npm run server -- rotate-keys` (docs/PROTOCOL.md §2.7.4, §2.7.8): writes the next key set,
 * signed by the threshold of the current root keys and of the new ones. Rotating the freshness
 * key is routine (a new one is generated here); release keys are named by their public keys
 * (they live offline) or generated here for the development path; the root may change too.
 *
 * Crash safety: new key files are written as `<name>.next.json`, then the key set, then they
 * are renamed into place; a server that sees the key set first promotes them itself
 * (`promotePending` in trust-keys.ts).
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  addSignatures,
  encodeKeySet,
  envelopeFromJson,
  KEYSET_PAYLOAD_TYPE,
  parseKeySet,
  signDsse,
  type KeySet,
  type KeySetPayload,
  type Role,
  type RolePayload,
} from '#protocol';
import { HttpError } from '../../http/http-error.js';
import type { RandomSource } from '../../platform/random.js';
import { KeyChainError, KeyChainStore } from './key-chain-store.js';
import { NODE_KEY_FILE } from './node-key.js';
import { verifyRelease } from '../publish/release-bundle.js';
import { removeRetiredRootKey, writeRotatedRoots } from '../tuf/tuf-root.js';
import { releaseOf, ReleaseStore } from '../publish/release-store.js';
import {
  FRESHNESS_KEY_FILE,
  heldKey,
  nextFile,
  RELEASE_KEY_FILE,
  renameIfThere,
  type HeldKey,
} from './trust-keys.js';

export interface RotateKeysOptions {
  readonly dataDir: string;
  /** Current root secret key files (default: the data directory's node-key.json). */
  readonly rootKeyFiles: readonly string[];
  /** New root secret key files, generated when they do not exist (none: the root stays). */
  readonly newRootKeyFiles: readonly string[];
  readonly rootThreshold: number | undefined;
  /** The new release keys by public key (64 hex), held offline (none: they stay). */
  readonly releasePubkeys: readonly string[];
  /** Generate a new release key into release-key.json (the development path). */
  readonly newReleaseKey: boolean;
  readonly releaseThreshold: number | undefined;
  /** Generate a new freshness key into freshness-key.json (routine). */
  readonly newFreshnessKey: boolean;
}

export interface RotateKeysResult {
  readonly ok: true;
  readonly version: number;
  readonly root: RolePayload;
  readonly release: RolePayload;
  readonly freshness: RolePayload;
}

const hexOf = (role: Role): string[] => role.keys.map((k) => k.hex);

async function mustHold(file: string, random: RandomSource): Promise<HeldKey> {
  const key = await heldKey('.', file, random, false);
  if (key === undefined) throw new HttpError(400, 'BAD_KEY', `${file} does not exist`);
  return key;
}

/** Writes key set N+1; refuses one that would leave the current release unverifiable. */
/** The next key set: roles given anew replace the current ones, the rest carry over. */
function nextPayload(
  options: RotateKeysOptions,
  current: NonNullable<KeyChainStore['newest']>,
  newRoots: readonly HeldKey[],
  release: HeldKey | undefined,
  freshness: HeldKey | undefined,
): KeySetPayload {
  const role = (keys: string[], threshold: number | undefined, was: Role): RolePayload => ({
    threshold: threshold ?? Math.min(was.threshold, keys.length),
    keys,
  });
  const releaseKeys =
    release !== undefined
      ? [release.hex]
      : options.releasePubkeys.length > 0
        ? [...options.releasePubkeys]
        : hexOf(current.release);
  return {
    version: current.version + 1,
    root: role(
      newRoots.length > 0 ? newRoots.map((k) => k.hex) : hexOf(current.root),
      options.rootThreshold,
      current.root,
    ),
    release: role(releaseKeys, options.releaseThreshold, current.release),
    freshness:
      freshness === undefined
        ? rolePayload(current.freshness)
        : role([freshness.hex], 1, current.freshness),
  };
}

/**
 * Rotates the key chain to key set N+1 and writes TUF root N+1 beside it, dated by `now` (the
 * server's clock, so that a test or a moved dev clock dates it as the server would).
 */
export async function rotateKeys(
  options: RotateKeysOptions,
  random: RandomSource,
  now: () => number,
): Promise<RotateKeysResult> {
  const { dataDir } = options;
  const chain = new KeyChainStore(dataDir);
  await chain.load();
  const current = chain.newest;
  if (current === undefined) throw new KeyChainError(`no key chain in ${dataDir}`);
  const rootFiles =
    options.rootKeyFiles.length > 0 ? options.rootKeyFiles : [join(dataDir, NODE_KEY_FILE)];
  const signers = await Promise.all(rootFiles.map((f) => mustHold(f, random)));
  const newRoots = await Promise.all(
    options.newRootKeyFiles.map(async (f) => (await heldKey('.', f, random, true)) as HeldKey),
  );
  const pending: { from: string; to: string }[] = [];
  const generate = async (name: string): Promise<HeldKey> => {
    const to = join(dataDir, name);
    pending.push({ from: nextFile(to), to });
    return (await heldKey(dataDir, nextFile(to), random, true)) as HeldKey;
  };
  const release = options.newReleaseKey ? await generate(RELEASE_KEY_FILE) : undefined;
  const freshness = options.newFreshnessKey ? await generate(FRESHNESS_KEY_FILE) : undefined;
  const payload = nextPayload(options, current, newRoots, release, freshness);
  let bytes: Uint8Array;
  try {
    bytes = encodeKeySet(payload);
  } catch (cause) {
    throw new KeyChainError(`the new key set is invalid: ${(cause as Error).message}`, { cause });
  }
  try {
    await keepCurrentReleaseServable(dataDir, current, bytes, release);
    const link = signDsse(bytes, KEYSET_PAYLOAD_TYPE, [...signers, ...newRoots]);
    // Verified as every client will: the previous root's threshold and the new one's.
    await chain.append(link);
  } catch (error) {
    // Nothing was rotated: the keys generated for it go.
    for (const { from } of pending) await rm(from, { force: true });
    throw error;
  }
  for (const { from, to } of pending) await renameIfThere(from, to);
  // The TUF roots after the key set they mirror (docs/PROTOCOL.md §TUF repository).
  const rotation = { current, next: payload, oldSigners: signers, newSigners: newRoots };
  await writeRotatedRoots(dataDir, rotation, now());
  const dataDirRoot = await heldKey(dataDir, join(dataDir, NODE_KEY_FILE), random, false);
  await removeRetiredRootKey(dataDir, payload.root.keys, dataDirRoot);
  return {
    ok: true,
    version: payload.version,
    root: payload.root,
    release: payload.release,
    freshness: payload.freshness,
  };
}

function rolePayload(role: Role): RolePayload {
  return { threshold: role.threshold, keys: hexOf(role) };
}

/**
 * The current release must verify under the new release role, or every client would refuse
 * it after the rotation. A release key generated here co-signs it at once (same payload, one
 * more signature); offline keys must have co-signed it before (sign-release --bundle).
 */
async function keepCurrentReleaseServable(
  dataDir: string,
  current: KeySet,
  nextBytes: Uint8Array,
  generated: HeldKey | undefined,
): Promise<void> {
  const next = parseKeySet(nextBytes);
  const store = new ReleaseStore(dataDir, (env) => {
    verifyRelease(env, current);
  });
  await store.load();
  const release = store.current;
  if (release === undefined) return;
  let envelope = release.envelope;
  if (generated !== undefined) envelope = addSignatures(envelope, [generated]);
  try {
    verifyRelease(envelopeFromJson(envelope, 'release'), next);
  } catch (cause) {
    throw new KeyChainError(
      `release ${release.manifest.registry_version} is not signed by the new release keys: co-sign it (sign-release --bundle) and publish it first`,
      { cause },
    );
  }
  if (envelope !== release.envelope) await store.save(releaseOf(envelope, release.legacy));
}
