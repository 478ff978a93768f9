/**
 * Parsers of the `signed` part of root, timestamp and snapshot (TUF spec §4.3, §4.4, §4.5).
 * Unknown members are allowed and stay in the signed bytes (TUF spec §4: "must include the
 * data when calculating hashes or verifying signatures").
 */
import { booleanAt, malformed, memberNames, objectAt } from './fields.js';
import {
  TOP_LEVEL_ROLES,
  type MetaFile,
  type RoleKeys,
  type Root,
  type Snapshot,
  type Timestamp,
  type TopLevelRole,
} from './metadata.js';
import { parseCommon, parseKeys, parseMetaFile, parseRoleKeys } from './parse-common.js';
import type { JsonObject } from './strict-json.js';

export function parseRoot(signed: JsonObject): Root {
  const common = parseCommon(signed, 'root');
  const keys = parseKeys(objectAt(signed, 'keys', 'root'), 'root');
  const rolesJson = objectAt(signed, 'roles', 'root');
  const names = memberNames(rolesJson);
  // TUF spec §4.3: root names exactly the four top-level roles.
  if (names.length !== TOP_LEVEL_ROLES.length || !TOP_LEVEL_ROLES.every((r) => names.includes(r))) {
    throw malformed('root', 'roles must be exactly root, timestamp, snapshot and targets');
  }
  const roles = {} as Record<TopLevelRole, RoleKeys>;
  for (const name of TOP_LEVEL_ROLES) {
    roles[name] = parseRoleKeys(objectAt(rolesJson, name, 'root roles'), `root role ${name}`);
  }
  const consistent = signed['consistent_snapshot'];
  return {
    ...common,
    type: 'root',
    consistentSnapshot:
      consistent === undefined ? false : booleanAt(signed, 'consistent_snapshot', 'root'),
    keys,
    roles,
  };
}

export function parseTimestamp(signed: JsonObject): Timestamp {
  const common = parseCommon(signed, 'timestamp');
  const meta = objectAt(signed, 'meta', 'timestamp');
  const snapshotMeta = parseMetaFile(
    objectAt(meta, 'snapshot.json', 'timestamp meta'),
    'timestamp meta',
  );
  // Not a TUF field: our per-request timestamp's (docs/PROTOCOL.md §TUF repository, Nonce).
  const nonce = signed['nonce'];
  return {
    ...common,
    type: 'timestamp',
    snapshotMeta,
    ...(typeof nonce === 'string' ? { nonce } : {}),
  };
}

export function parseSnapshot(signed: JsonObject): Snapshot {
  const common = parseCommon(signed, 'snapshot');
  const metaJson = objectAt(signed, 'meta', 'snapshot');
  const meta = new Map<string, MetaFile>();
  for (const name of memberNames(metaJson)) {
    meta.set(
      name,
      parseMetaFile(objectAt(metaJson, name, 'snapshot meta'), `snapshot meta ${name}`),
    );
  }
  return { ...common, type: 'snapshot', meta };
}
