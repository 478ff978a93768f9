/**
 * Signed TUF metadata for unit tests of the updater's TUF layer: a root over given keys and a
 * targets file carrying the product's custom fields (docs/PROTOCOL.md §TUF repository).
 */
import { tuf } from '#protocol';
import { newKey, type TestKey } from './trust-kit.js';

export const DAY_MS = 86_400_000;

export const signerOf = (key: TestKey): tuf.TufSigner => ({ publicHex: key.hex, sign: key.sign });

/** Keys of the four top-level roles, one each. */
export interface RoleKeysKit {
  readonly root: TestKey;
  readonly targets: TestKey;
  readonly online: TestKey;
}

export function roleKeys(): RoleKeysKit {
  return { root: newKey(), targets: newKey(), online: newKey() };
}

/** Root `version` over `keys`, signed by `signers` (default: its own root key). */
export function signedRoot(
  keys: RoleKeysKit,
  version: number,
  nowMs: number,
  signers: readonly TestKey[] = [keys.root],
): Uint8Array {
  const role = (key: TestKey) => ({ keys: [key.hex], threshold: 1 });
  const signed = tuf.buildRoot({
    version,
    expiresMs: nowMs + 365 * DAY_MS,
    root: role(keys.root),
    targets: role(keys.targets),
    snapshot: role(keys.online),
    timestamp: role(keys.online),
  });
  return tuf.signMetadata(signed, signers.map(signerOf));
}

/**
 * Targets `version` naming `files`, with custom.registry_version (and `more` custom fields),
 * signed by `signer`.
 */
export function signedTargets(
  signer: TestKey,
  registryVersion: string | undefined,
  files: readonly tuf.TargetSpec[],
  nowMs: number,
  version = 1,
  more: tuf.JsonObject = {},
): Uint8Array {
  const custom =
    registryVersion === undefined ? {} : { custom: { registry_version: registryVersion, ...more } };
  const signed = tuf.buildTargets({ version, expiresMs: nowMs + 90 * DAY_MS, ...custom }, files);
  return tuf.signMetadata(signed, [signerOf(signer)]);
}
