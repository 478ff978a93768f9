/**
 * Builders of the `signed` part of the four top-level roles (TUF spec §4.3..§4.6), spec-exact:
 * `_type`, `spec_version`, `version`, `expires` (UTC, whole seconds, TUF spec §4.2) and the
 * role's own members. Pure: the caller signs the result (sign.ts).
 */
import type { JsonObject } from './strict-json.js';
import { ed25519KeyObject, tufKeyId } from './sign.js';

/** The specification version the repository writes (TUF 1.0.x). */
export const SPEC_VERSION = '1.0.31';

/** "YYYY-MM-DDTHH:MM:SSZ" (TUF spec §4.2): milliseconds are dropped, never rounded up. */
export function formatExpires(ms: number): string {
  return `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}

interface Common {
  readonly version: number;
  readonly expiresMs: number;
}

/** Hex Ed25519 public keys and how many must sign, per role. */
export interface RoleSpec {
  readonly keys: readonly string[];
  readonly threshold: number;
}

export interface RootSpec extends Common {
  readonly root: RoleSpec;
  readonly targets: RoleSpec;
  readonly snapshot: RoleSpec;
  readonly timestamp: RoleSpec;
}

function header(type: string, common: Common): JsonObject {
  return {
    _type: type,
    spec_version: SPEC_VERSION,
    version: common.version,
    expires: formatExpires(common.expiresMs),
  };
}

/** Root (TUF spec §4.3), always with `consistent_snapshot: true` (TUF spec §5.7.3). */
export function buildRoot(spec: RootSpec): JsonObject {
  const keys: Record<string, JsonObject> = {};
  const roles: Record<string, JsonObject> = {};
  for (const name of ['root', 'targets', 'snapshot', 'timestamp'] as const) {
    const role = spec[name];
    const keyids = role.keys.map((hex) => {
      const keyid = tufKeyId(hex);
      keys[keyid] = ed25519KeyObject(hex);
      return keyid;
    });
    roles[name] = { keyids, threshold: role.threshold };
  }
  return { ...header('root', spec), consistent_snapshot: true, keys, roles };
}

/** One target (TUF spec §4.5 TARGETPATH): length, sha256, and the product's fields. */
export interface TargetSpec {
  readonly path: string;
  readonly length: number;
  readonly sha256: string;
  readonly custom?: JsonObject;
}

export function buildTargets(
  common: Common & { readonly custom?: JsonObject },
  files: readonly TargetSpec[],
): JsonObject {
  const targets: Record<string, JsonObject> = {};
  for (const file of files) {
    targets[file.path] = {
      length: file.length,
      hashes: { sha256: file.sha256 },
      ...(file.custom === undefined ? {} : { custom: file.custom }),
    };
  }
  return {
    ...header('targets', common),
    targets,
    ...(common.custom === undefined ? {} : { custom: common.custom }),
  };
}

/** Snapshot (TUF spec §4.4): the version of targets.json (and of each delegated role). */
export function buildSnapshot(common: Common, targetsVersion: number): JsonObject {
  return { ...header('snapshot', common), meta: { 'targets.json': { version: targetsVersion } } };
}

/** What timestamp says of snapshot.json: its version, and length and hashes of its bytes. */
export interface SnapshotRef {
  readonly version: number;
  readonly length: number;
  readonly sha256: string;
}

/** Timestamp (TUF spec §4.6). */
export function buildTimestamp(common: Common, snapshot: SnapshotRef): JsonObject {
  return {
    ...header('timestamp', common),
    meta: {
      'snapshot.json': {
        version: snapshot.version,
        length: snapshot.length,
        hashes: { sha256: snapshot.sha256 },
      },
    },
  };
}
