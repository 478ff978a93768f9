/**
 * Root metadata from the key chain (docs/PROTOCOL.md §TUF repository, Roles and keys): root N
 * mirrors key set N — its root keys sign root, its release keys are the targets role and its
 * freshness keys are both the snapshot and the timestamp role. Root 1 is signed by the node
 * key; root N+1 by the threshold of root N and of root N+1 (TUF spec §5.3.4), written by
 * `rotate-keys` with the same keys that sign key set N+1.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { tuf, type KeySet, type KeySetPayload, type Role } from '#protocol';
import { writeFileAtomic } from '#shared/atomic-file.js';
import { ROOT_LIFETIME_S, TUF_DIR, versionedName } from './tuf-layout.js';

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
