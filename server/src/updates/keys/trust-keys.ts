/**
 * The signing keys the server holds and the chain they belong to (docs/PROTOCOL.md §2.7.8).
 * A data directory without a chain (a fresh one, or one of format 1) gets key set 1: the node
 * key as root, a new release key and a new freshness key, signed by the node key. With a chain,
 * only the freshness key is required; the root and release keys are used when they are there
 * (the one-command development path) and must then belong to the chain.
 */
import { access, rename } from 'node:fs/promises';
import { join } from 'node:path';
import {
  encodeKeySet,
  keyIdOf,
  KEYSET_PAYLOAD_TYPE,
  nativeSigner,
  signDsse,
  type KeySet,
  type Role,
  type Signer,
} from '#protocol';
import type { RandomSource } from '../../platform/random.js';
import { errorClass } from '../../server-error.js';
import { KEYS_DIR, KeyChainError, KeyChainStore } from './key-chain-store.js';
import { loadNodeKey, NODE_KEY_FILE } from './node-key.js';
import { rootNeverRotated } from '../tuf/format-one-gate.js';

export const RELEASE_KEY_FILE = 'release-key.json';
export const FRESHNESS_KEY_FILE = 'freshness-key.json';

/** A key whose secret this server holds. */
export interface HeldKey extends Signer {
  readonly hex: string;
  readonly keyid: string;
}

export interface TrustKeys {
  readonly chain: KeyChainStore;
  /** The node key (root of key set 1) when held: signs format 1 envelopes for old clients. */
  readonly root: HeldKey | undefined;
  /** A release key of the newest key set when held: publish signs releases itself. */
  readonly release: HeldKey | undefined;
  /** The freshness key of the newest key set. */
  readonly freshness: HeldKey;
  /** What clients pin: key set 1's first root key (docs/PROTOCOL.md §2.7.4). */
  readonly nodePubkeyHex: string;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/** Loads a key file (generating it when `create` and absent); undefined when absent. */
export async function heldKey(
  dataDir: string,
  file: string,
  random: RandomSource,
  create: boolean,
): Promise<HeldKey | undefined> {
  if (!create && !(await exists(file))) return undefined;
  const key = await loadNodeKey(dataDir, file, random);
  return {
    publicKey: key.publicKey,
    hex: key.publicKeyHex,
    keyid: keyIdOf(key.publicKey),
    sign: nativeSigner(key.secretKey),
  };
}

const inRole = (role: Role, key: HeldKey): boolean => role.keys.some((k) => k.keyid === key.keyid);

/**
 * A directory without a key chain and without a node key, opened where a new node key must not
 * be made silently (`publish` without `--init`): clients pinned to the real key would refuse
 * every release signed under a new one with UNKNOWN_KEY.
 */
export const NodeKeyMissingError = errorClass('NodeKeyMissingError', 'NODE_KEY_MISSING');
export type NodeKeyMissingError = InstanceType<typeof NodeKeyMissingError>;

/**
 * Throws NodeKeyMissingError when opening `dataDir` would create a new node key: no key chain
 * (keys/1.json) and no node key file. Reads only, so a refused directory is left as it was.
 */
export async function refuseNewRoot(
  dataDir: string,
  nodeKeyFile: string | undefined,
): Promise<void> {
  const rootFile = nodeKeyFile ?? join(dataDir, NODE_KEY_FILE);
  if (await exists(join(dataDir, KEYS_DIR, '1.json'))) return;
  if (await exists(rootFile)) return;
  throw new NodeKeyMissingError(
    `${dataDir} has no key chain and ${rootFile} does not exist: a new node key would be created`,
  );
}

/** Opens (or, on a directory without a chain, creates) the chain and the keys held. */
export async function openTrustKeys(
  dataDir: string,
  nodeKeyFile: string | undefined,
  random: RandomSource,
): Promise<TrustKeys> {
  const rootFile = nodeKeyFile ?? join(dataDir, NODE_KEY_FILE);
  const chain = new KeyChainStore(dataDir);
  await chain.load();
  if (chain.newest === undefined) {
    const root = (await heldKey(dataDir, rootFile, random, true)) as HeldKey;
    const release = (await heldKey(
      dataDir,
      join(dataDir, RELEASE_KEY_FILE),
      random,
      true,
    )) as HeldKey;
    const freshness = (await heldKey(
      dataDir,
      join(dataDir, FRESHNESS_KEY_FILE),
      random,
      true,
    )) as HeldKey;
    const payload = encodeKeySet({
      version: 1,
      root: { threshold: 1, keys: [root.hex] },
      release: { threshold: 1, keys: [release.hex] },
      freshness: { threshold: 1, keys: [freshness.hex] },
    });
    await chain.append(signDsse(payload, KEYSET_PAYLOAD_TYPE, [root]));
  }
  await promotePending(dataDir, chain.newest as KeySet, random);
  return keysOf(chain, dataDir, rootFile, nodeKeyFile !== undefined, random);
}

/** The held keys checked against the chain (also after a reload: a rotation). */
export async function keysOf(
  chain: KeyChainStore,
  dataDir: string,
  rootFile: string,
  rootRequired: boolean,
  random: RandomSource,
): Promise<TrustKeys> {
  const first = chain.first as KeySet;
  const newest = chain.newest as KeySet;
  const root = await heldKey(dataDir, rootFile, random, false);
  if (root === undefined && rootRequired) throw new KeyChainError(`${rootFile} does not exist`);
  if (root !== undefined && !inRole(first.root, root) && !inRole(newest.root, root)) {
    throw new KeyChainError('the node key is no root key of the key chain');
  }
  const release = await heldKey(dataDir, join(dataDir, RELEASE_KEY_FILE), random, false);
  if (release !== undefined && !inRole(newest.release, release)) {
    throw new KeyChainError(
      `${RELEASE_KEY_FILE} is no release key of key set ${newest.version}: remove it or rotate`,
    );
  }
  const freshness = await heldKey(dataDir, join(dataDir, FRESHNESS_KEY_FILE), random, false);
  if (freshness === undefined || !inRole(newest.freshness, freshness)) {
    throw new KeyChainError(
      `${FRESHNESS_KEY_FILE} must hold a freshness key of key set ${newest.version}`,
    );
  }
  return {
    chain,
    // Old clients pin key set 1's root: only that key can sign format 1 envelopes for them.
    // And only while the root never rotated (docs/PROTOCOL.md §TUF repository).
    root:
      root !== undefined && inRole(first.root, root) && rootNeverRotated(first, newest)
        ? root
        : undefined,
    release,
    freshness,
    nodePubkeyHex: (first.root.keys[0] as { hex: string }).hex,
  };
}

/** Where a rotation writes a new key file before its key set exists (rotate-keys.ts). */
export const nextFile = (file: string): string => file.replace(/\.json$/, '.next.json');

/** Renames `from` to `to`; a `from` already renamed (by the other process) is fine. */
export async function renameIfThere(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * Moves `<name>.next.json` key files left by a rotation into place once their key belongs to
 * the newest key set (a rotation that stopped after its key set, or a server that saw the key
 * set before the rotation renamed them). Other pending files are left for the operator.
 */
export async function promotePending(
  dataDir: string,
  newest: KeySet,
  random: RandomSource,
): Promise<void> {
  for (const [name, role] of [
    [RELEASE_KEY_FILE, newest.release],
    [FRESHNESS_KEY_FILE, newest.freshness],
  ] as const) {
    const to = join(dataDir, name);
    const key = await heldKey(dataDir, nextFile(to), random, false).catch(() => undefined);
    if (key !== undefined && inRole(role, key)) await renameIfThere(nextFile(to), to);
  }
}
