/**
 * The TUF 1.0 metadata model (TUF spec §4): what the parsers in this folder return. Read-only
 * values; hashes keep the order the repository wrote them in (the first one names consistent
 * target files, TUF spec §5.7.3).
 */
import type { JsonObject, JsonValue } from './strict-json.js';

export const TOP_LEVEL_ROLES = ['root', 'timestamp', 'snapshot', 'targets'] as const;
export type TopLevelRole = (typeof TOP_LEVEL_ROLES)[number];

/** Algorithm name -> lowercase hex digest, in the order written. */
export type Hashes = ReadonlyMap<string, string>;

/** A public key as root or a delegating targets role lists it (TUF spec §4.2). */
export interface TufKey {
  readonly keyid: string;
  readonly keytype: string;
  readonly scheme: string;
  /** `keyval.public`, when it is a string (hex for ed25519, PEM for ecdsa and rsa). */
  readonly publicValue: string | undefined;
}

/** The keys allowed to sign a role and how many of them must (TUF spec §4.3). */
export interface RoleKeys {
  readonly keyids: readonly string[];
  readonly threshold: number;
}

export interface SignedCommon {
  readonly type: string;
  readonly specVersion: string;
  readonly version: number;
  /** `expires` as written, and as milliseconds since the epoch. */
  readonly expires: string;
  readonly expiresMs: number;
}

export interface Root extends SignedCommon {
  readonly type: 'root';
  readonly consistentSnapshot: boolean;
  readonly keys: ReadonlyMap<string, TufKey>;
  readonly roles: Readonly<Record<TopLevelRole, RoleKeys>>;
}

/** What timestamp says of snapshot, and snapshot of each targets role (TUF spec §4.4, §4.5). */
export interface MetaFile {
  readonly version: number;
  readonly length?: number;
  readonly hashes?: Hashes;
}

export interface Timestamp extends SignedCommon {
  readonly type: 'timestamp';
  readonly snapshotMeta: MetaFile;
  /** The request nonce of a per-request timestamp, when `signed` has it as a string. */
  readonly nonce?: string;
}

export interface Snapshot extends SignedCommon {
  readonly type: 'snapshot';
  /** By file name: `targets.json`, `<role>.json`. */
  readonly meta: ReadonlyMap<string, MetaFile>;
}

export interface TargetFile {
  readonly path: string;
  readonly length: number;
  readonly hashes: Hashes;
  readonly custom: JsonObject | undefined;
}

export interface DelegatedRole extends RoleKeys {
  readonly name: string;
  readonly terminating: boolean;
  readonly paths: readonly string[] | undefined;
  readonly pathHashPrefixes: readonly string[] | undefined;
}

/** Hash-bin delegation in its succinct form (TAP 15). */
export interface SuccinctRoles extends RoleKeys {
  readonly bitLength: number;
  readonly namePrefix: string;
}

export interface Delegations {
  readonly keys: ReadonlyMap<string, TufKey>;
  readonly roles: readonly DelegatedRole[] | undefined;
  readonly succinctRoles: SuccinctRoles | undefined;
}

export interface Targets extends SignedCommon {
  readonly type: 'targets';
  readonly targets: ReadonlyMap<string, TargetFile>;
  readonly delegations: Delegations | undefined;
  /**
   * `signed.custom` as read, unchecked: TUF gives it no shape (TUF spec §4.5); the product
   * reads its own fields from it (src/core/trust/tuf-manifest.ts).
   */
  readonly custom?: JsonValue | undefined;
}

export type Signed = Root | Timestamp | Snapshot | Targets;

export interface Signature {
  readonly keyid: string;
  /** Lowercase hex as written. */
  readonly sig: string;
}

/** One metadata file: its parsed `signed`, its signatures and the bytes they sign. */
export interface Envelope<T extends Signed = Signed> {
  readonly signed: T;
  readonly signatures: readonly Signature[];
  /** Canonical JSON of `signed` (TUF spec §4.2): what every signature covers. */
  readonly signedBytes: Uint8Array;
  /** The bytes as received: what is stored, byte for byte. */
  readonly raw: Uint8Array;
}
