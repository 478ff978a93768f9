/**
 * Parser of the `signed` part of targets and delegated targets metadata (TUF spec §4.5),
 * delegations included: either a list of roles or succinct hash bins (TAP 15), never both.
 */
import {
  booleanAt,
  integerAt,
  malformed,
  memberNames,
  objectAt,
  optionalObjectAt,
  stringAt,
  stringsAt,
} from './fields.js';
import {
  TOP_LEVEL_ROLES,
  type DelegatedRole,
  type Delegations,
  type SuccinctRoles,
  type TargetFile,
  type Targets,
} from './metadata.js';
import { parseCommon, parseHashes, parseKeys, parseRoleKeys } from './parse-common.js';
import { isJsonObject, type JsonObject, type JsonValue } from './strict-json.js';

export function parseTargets(signed: JsonObject): Targets {
  const common = parseCommon(signed, 'targets');
  const targetsJson = objectAt(signed, 'targets', 'targets');
  const targets = new Map<string, TargetFile>();
  for (const path of memberNames(targetsJson)) {
    targets.set(path, parseTargetFile(path, objectAt(targetsJson, path, 'targets')));
  }
  const delegationsJson = optionalObjectAt(signed, 'delegations', 'targets');
  return {
    ...common,
    type: 'targets',
    targets,
    delegations: delegationsJson === undefined ? undefined : parseDelegations(delegationsJson),
    custom: signed['custom'],
  };
}

function parseTargetFile(path: string, value: JsonObject): TargetFile {
  const where = `target ${path}`;
  const hashes = parseHashes(value, where);
  if (hashes === undefined) throw malformed(where, '"hashes" is required');
  const custom = value['custom'];
  if (custom !== undefined && !isJsonObject(custom))
    throw malformed(where, '"custom" must be an object');
  return { path, length: integerAt(value, 'length', where, 0), hashes, custom };
}

function parseDelegations(value: JsonObject): Delegations {
  const keys = parseKeys(objectAt(value, 'keys', 'delegations'), 'delegations');
  const rolesJson: JsonValue | undefined = value['roles'];
  const succinctJson = optionalObjectAt(value, 'succinct_roles', 'delegations');
  if ((rolesJson === undefined) === (succinctJson === undefined)) {
    throw malformed('delegations', 'exactly one of "roles" and "succinct_roles" must be set');
  }
  let roles: DelegatedRole[] | undefined;
  if (rolesJson !== undefined) {
    if (!Array.isArray(rolesJson)) throw malformed('delegations', '"roles" must be an array');
    roles = (rolesJson as readonly JsonValue[]).map(parseDelegatedRole);
    const names = new Set(roles.map((role) => role.name));
    if (names.size !== roles.length) throw malformed('delegations', 'a role name repeats');
  }
  return {
    keys,
    roles,
    succinctRoles: succinctJson === undefined ? undefined : parseSuccinctRoles(succinctJson),
  };
}

function parseDelegatedRole(value: JsonValue): DelegatedRole {
  if (!isJsonObject(value)) throw malformed('delegations', 'a role must be an object');
  const name = stringAt(value, 'name', 'delegated role');
  const where = `delegated role ${name}`;
  // A delegation must not take the name of a top-level role (it would alias its metadata file).
  if (name === '' || (TOP_LEVEL_ROLES as readonly string[]).includes(name)) {
    throw malformed(where, 'a delegated role may not be empty or use a top-level name');
  }
  const hasPaths = value['paths'] !== undefined;
  const hasPrefixes = value['path_hash_prefixes'] !== undefined;
  if (hasPaths === hasPrefixes) {
    throw malformed(where, 'exactly one of "paths" and "path_hash_prefixes" must be set');
  }
  return {
    name,
    ...parseRoleKeys(value, where),
    terminating: booleanAt(value, 'terminating', where),
    paths: hasPaths ? stringsAt(value, 'paths', where, false) : undefined,
    pathHashPrefixes: hasPrefixes
      ? stringsAt(value, 'path_hash_prefixes', where, false)
      : undefined,
  };
}

function parseSuccinctRoles(value: JsonObject): SuccinctRoles {
  const where = 'succinct_roles';
  const bitLength = integerAt(value, 'bit_length', where, 1);
  if (bitLength > 32) throw malformed(where, '"bit_length" must be at most 32');
  return {
    ...parseRoleKeys(value, where),
    bitLength,
    namePrefix: stringAt(value, 'name_prefix', where),
  };
}
