/**
 * The key set (docs/PROTOCOL.md §2.7.1): which keys hold each signature role, and how many of
 * them must sign. Signed by the root role of the key set before it and by its own
 * (key-chain.ts). Payload type KEYSET_PAYLOAD_TYPE; the payload is JSON:
 *
 *   {"version": 1,
 *    "root":      {"threshold": 1, "keys": ["<64 hex>", ...]},
 *    "release":   {"threshold": 2, "keys": [...]},
 *    "freshness": {"threshold": 1, "keys": [...]}}
 */
import { PUBLIC_KEY_BYTES } from './ed25519.js';
import { isJsonObject, parseJsonObject, requiredField, type JsonObject } from './json-object.js';
import { keyIdOf } from './keys.js';
import { ProtocolError } from './protocol-error.js';

export const KEYSET_PAYLOAD_TYPE = 'application/vnd.updates.keyset+json';
/** n of k-of-n: at most this many keys per role (also bounds the signatures counted). */
export const MAX_ROLE_KEYS = 16;
/** A key set payload is small: three roles of at most 16 keys. */
export const MAX_KEYSET_PAYLOAD_BYTES = 16 * 1024;
export const ROLE_NAMES = ['root', 'release', 'freshness'] as const;
export type RoleName = (typeof ROLE_NAMES)[number];

export interface RoleKey {
  readonly keyid: string;
  readonly publicKey: Uint8Array;
  /** The key as it travels: 64 lowercase hex (the node_pubkey form). */
  readonly hex: string;
}

export interface Role {
  readonly threshold: number;
  readonly keys: readonly RoleKey[];
}

export interface KeySet {
  /** 1 for the first key set; each rotation adds exactly one. */
  readonly version: number;
  readonly root: Role;
  readonly release: Role;
  readonly freshness: Role;
}

/** The wire form of one role. */
export interface RolePayload {
  readonly threshold: number;
  readonly keys: readonly string[];
}

/** The wire form of a key set (what `encodeKeySet` serialises). */
export interface KeySetPayload {
  readonly version: number;
  readonly root: RolePayload;
  readonly release: RolePayload;
  readonly freshness: RolePayload;
}

const HEX64 = /^[0-9a-f]{64}$/;

function malformed(message: string): never {
  throw new ProtocolError('MANIFEST_MALFORMED', `key set: ${message}`);
}

/** A role from hex keys; the rules of `parseKeySet` (distinct keys, 1 <= threshold <= n <= 16). */
export function roleOf(threshold: number, hexKeys: readonly string[], where = 'role'): Role {
  if (hexKeys.length === 0 || hexKeys.length > MAX_ROLE_KEYS) {
    malformed(`${where}.keys must hold 1 to ${MAX_ROLE_KEYS} keys`);
  }
  if (!Number.isSafeInteger(threshold) || threshold < 1 || threshold > hexKeys.length) {
    malformed(`${where}.threshold must be an integer from 1 to ${hexKeys.length}`);
  }
  const seen = new Set<string>();
  const keys = hexKeys.map((hex, i) => {
    if (typeof hex !== 'string' || !HEX64.test(hex)) {
      throw new ProtocolError('BAD_KEY', `key set: ${where}.keys[${i}] is not 64 lowercase hex`);
    }
    if (seen.has(hex)) malformed(`${where}.keys lists a key twice`);
    seen.add(hex);
    const publicKey = new Uint8Array(Buffer.from(hex, 'hex'));
    return { keyid: keyIdOf(publicKey), publicKey, hex };
  });
  return { threshold, keys };
}

function parseRole(o: JsonObject, name: RoleName): Role {
  const value = requiredField(o, name, 'key set');
  if (!isJsonObject(value)) malformed(`${name} is not an object`);
  const threshold = requiredField(value, 'threshold', `key set ${name}`);
  const keys = requiredField(value, 'keys', `key set ${name}`);
  if (typeof threshold !== 'number') malformed(`${name}.threshold is not a number`);
  if (!Array.isArray(keys)) malformed(`${name}.keys is not an array`);
  return roleOf(threshold, keys as string[], name);
}

/**
 * Parses key set payload bytes. Unknown fields are ignored (they are signed, so a newer
 * server may add them). One key holds one role: the online freshness key can never also be a
 * release or root key, which is what keeps the roles apart (docs/SECURITY.md §5).
 */
export function parseKeySet(bytes: Uint8Array): KeySet {
  if (bytes.length > MAX_KEYSET_PAYLOAD_BYTES) {
    malformed(`payload is over ${MAX_KEYSET_PAYLOAD_BYTES} bytes`);
  }
  const o = parseJsonObject(bytes, 'key set');
  const version = requiredField(o, 'version', 'key set');
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) {
    malformed('version is not a positive integer');
  }
  const root = parseRole(o, 'root');
  const release = parseRole(o, 'release');
  const freshness = parseRole(o, 'freshness');
  const owner = new Map<string, RoleName>();
  for (const [name, role] of [
    ['root', root],
    ['release', release],
    ['freshness', freshness],
  ] as const) {
    for (const key of role.keys) {
      const other = owner.get(key.keyid);
      if (other !== undefined) malformed(`a key is in both ${other} and ${name}`);
      owner.set(key.keyid, name);
    }
  }
  return { version, root, release, freshness };
}

/** The wire form of a key set. */
export function keySetPayload(keySet: KeySet): KeySetPayload {
  const role = (r: Role): RolePayload => ({
    threshold: r.threshold,
    keys: r.keys.map((k) => k.hex),
  });
  return {
    version: keySet.version,
    root: role(keySet.root),
    release: role(keySet.release),
    freshness: role(keySet.freshness),
  };
}

/** Serialises a key set to the exact bytes that get signed; refuses what parseKeySet would. */
export function encodeKeySet(payload: KeySetPayload): Uint8Array {
  const role = (r: RolePayload): RolePayload => ({ threshold: r.threshold, keys: [...r.keys] });
  const bytes = new TextEncoder().encode(
    JSON.stringify({
      version: payload.version,
      root: role(payload.root),
      release: role(payload.release),
      freshness: role(payload.freshness),
    }),
  );
  parseKeySet(bytes);
  return bytes;
}

/** The role's key with this keyid, if any. */
export function roleKey(role: Role, keyid: string): RoleKey | undefined {
  return role.keys.find((k) => k.keyid === keyid);
}

/** Every keyid of the key set, by role. */
export function keyOwners(keySet: KeySet): ReadonlyMap<string, RoleName> {
  const owners = new Map<string, RoleName>();
  for (const name of ROLE_NAMES) for (const k of keySet[name].keys) owners.set(k.keyid, name);
  return owners;
}

/** True when two roles name the same keys (order and threshold aside). */
export function sameKeys(a: Role, b: Role): boolean {
  if (a.keys.length !== b.keys.length) return false;
  const ids = new Set(a.keys.map((k) => k.keyid));
  return b.keys.every((k) => ids.has(k.keyid));
}

/**
 * The pinned node_pubkeys as the root role of the implicit key set 0: any one of them signs
 * (docs/PROTOCOL.md §2.7.4). Duplicates collapse; more than 16 distinct keys are refused.
 */
export function pinnedRole(publicKeys: readonly Uint8Array[]): Role {
  const hex = [...new Set(publicKeys.map((k) => Buffer.from(k).toString('hex')))];
  if (publicKeys.some((k) => k.length !== PUBLIC_KEY_BYTES)) {
    throw new ProtocolError('BAD_KEY', `a public key has ${PUBLIC_KEY_BYTES} bytes`);
  }
  if (hex.length === 0 || hex.length > MAX_ROLE_KEYS) {
    throw new ProtocolError('BAD_KEY', `pin 1 to ${MAX_ROLE_KEYS} node keys`);
  }
  return roleOf(1, hex, 'pinned');
}
