/**
 * Root metadata from the key chain (docs/PROTOCOL.md §TUF repository, Roles and keys): root N
 * mirrors key set N — its root keys sign root, its release keys are the targets role and its
 * freshness keys are both the snapshot and the timestamp role. Root 1 is signed by the node
 * key; root N+1 by the threshold of root N and of root N+1 (TUF spec §5.3.4), written by
 * `rotate-keys` with the same keys that sign key set N+1.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { tuf, type KeySet, type KeySetPayload, type Role } from '#protocol';
import { writeFileAtomic } from '#shared/atomic-file.js';
import { NODE_KEY_FILE } from '../keys/node-key.js';
import { highestVersion, ROOT_LIFETIME_S, TUF_DIR, versionedName } from './tuf-layout.js';

/** A key the caller holds: hex public key and a signing function. */
export interface HexSigner {
  readonly hex: string;
  readonly sign: (message: Uint8Array) => Uint8Array;
}

const roleSpec = (role: Role | KeySetPayload['root']): tuf.RoleSpec => ({
  threshold: role.threshold,
  keys: role.keys.map((k) => (typeof k === 'string' ? k : k.hex)),
});

/** The `signed` of root `version` for a key set (or a key set payload before it is signed). */
export function rootFor(
  keySet: KeySet | KeySetPayload,
  nowMs: number,
): ReturnType<typeof tuf.buildRoot> {
  return tuf.buildRoot({
    version: keySet.version,
    expiresMs: nowMs + ROOT_LIFETIME_S * 1000,
    root: roleSpec(keySet.root),
    targets: roleSpec(keySet.release),
    snapshot: roleSpec(keySet.freshness),
    timestamp: roleSpec(keySet.freshness),
  });
}

export const toTufSigner = (key: HexSigner): tuf.TufSigner => ({
  publicHex: key.hex,
  sign: key.sign,
});

/** Signs and writes `<dataDir>/tuf/<version>.root.json`. */
export async function writeRoot(
  dataDir: string,
  keySet: KeySet | KeySetPayload,
  signers: readonly HexSigner[],
  nowMs: number,
): Promise<void> {
  const dir = join(dataDir, TUF_DIR);
  await mkdir(dir, { recursive: true });
  const bytes = tuf.signMetadata(rootFor(keySet, nowMs), signers.map(toTufSigner));
  await writeFileAtomic(join(dir, versionedName(keySet.version, 'root')), bytes);
}

/**
 * The TUF side of `rotate-keys` (TUF spec §5.3.4, §6.1): root N (when the repository never
 * signed it: key set N predates it) and root N+1, signed by the old root keys and the new
 * ones together, so a client checks root N+1 against both thresholds.
 */
export async function writeRotatedRoots(
  dataDir: string,
  rotation: {
    readonly current: KeySet;
    readonly next: KeySetPayload;
    readonly oldSigners: readonly HexSigner[];
    readonly newSigners: readonly HexSigner[];
  },
  nowMs: number,
): Promise<void> {
  const dir = join(dataDir, TUF_DIR);
  const { current, next, oldSigners, newSigners } = rotation;
  if ((await highestVersion(dir, 'root')) < current.version) {
    await writeRoot(dataDir, current, oldSigners, nowMs);
  }
  await writeRoot(dataDir, next, [...oldSigners, ...newSigners], nowMs);
}

/**
 * After a root rotation the data directory keeps no retired root key (TUF spec §6.1: root keys
 * live offline): a node key file there whose key the new root dropped is removed.
 */
export async function removeRetiredRootKey(
  dataDir: string,
  nextRoot: readonly string[],
  held: HexSigner | undefined,
): Promise<boolean> {
  if (held === undefined || nextRoot.includes(held.hex)) return false;
  await rm(join(dataDir, NODE_KEY_FILE), { force: true });
  return true;
}
