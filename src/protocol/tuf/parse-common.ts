/**
 * Parsers of the pieces every role shares (TUF spec §4.2..§4.5): the common `signed` header,
 * keys, role key sets, hashes and the META_FILE of timestamp and snapshot.
 */
import {
  integerAt,
  malformed,
  memberNames,
  objectAt,
  optionalObjectAt,
  stringAt,
  stringsAt,
} from './fields.js';
import type { Hashes, MetaFile, RoleKeys, SignedCommon, TufKey } from './metadata.js';
import type { JsonObject } from './strict-json.js';
import { TufError } from './tuf-error.js';

/** TUF spec §4.2: "YYYY-MM-DDTHH:MM:SSZ", nothing else. */
const EXPIRES = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;
const SPEC_VERSION = /^(\d+)\.(\d+)(?:\.(\d+))?$/;
/** The major version of the specification this client implements (TUF spec §4.2). */
export const SUPPORTED_SPEC_MAJOR = '1';

export function parseCommon(signed: JsonObject, expectedType: string): SignedCommon {
  const where = expectedType;
  const type = stringAt(signed, '_type', where);
  if (type !== expectedType) {
    throw new TufError('WRONG_TYPE', `expected _type "${expectedType}", got "${type}"`, {
      expected: expectedType,
      got: type,
    });
  }
  const specVersion = stringAt(signed, 'spec_version', where);
  const spec = SPEC_VERSION.exec(specVersion);
  if (spec === null) throw malformed(where, `spec_version "${specVersion}" is malformed`);
  if (spec[1] !== SUPPORTED_SPEC_MAJOR) {
    throw new TufError('UNSUPPORTED_SPEC_VERSION', `spec_version ${specVersion} is not 1.x`);
  }
  const expires = stringAt(signed, 'expires', where);
  return {
    type,
    specVersion,
    version: integerAt(signed, 'version', where, 1),
    expires,
    expiresMs: parseExpires(expires, where),
  };
}

export function parseExpires(expires: string, where: string): number {
  const m = EXPIRES.exec(expires);
  if (m === null) throw malformed(where, `expires "${expires}" is not YYYY-MM-DDTHH:MM:SSZ`);
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  const back = new Date(ms);
  // Date.UTC rolls 2024-02-30 over into March: refuse dates that do not exist.
  if (back.getUTCDate() !== day || back.getUTCMonth() !== month - 1 || hour > 23) {
    throw malformed(where, `expires "${expires}" is not a date`);
  }
  if (minute > 59 || second > 59) throw malformed(where, `expires "${expires}" is not a time`);
  return ms;
}

/** `keys`: keyid -> key. Unknown key types are kept; they just never verify (TUF spec §4.2). */
export function parseKeys(keys: JsonObject, where: string): ReadonlyMap<string, TufKey> {
  const result = new Map<string, TufKey>();
  for (const keyid of memberNames(keys)) {
    const key = objectAt(keys, keyid, `${where} key ${keyid}`);
    const keyval = objectAt(key, 'keyval', `${where} key ${keyid}`);
    const publicValue = keyval['public'];
    result.set(keyid, {
      keyid,
      keytype: stringAt(key, 'keytype', `${where} key ${keyid}`),
      scheme: stringAt(key, 'scheme', `${where} key ${keyid}`),
      publicValue: typeof publicValue === 'string' ? publicValue : undefined,
    });
  }
  return result;
}

/** `keyids` (no repeats: a repeated keyid must not count twice) and `threshold` >= 1. */
export function parseRoleKeys(role: JsonObject, where: string): RoleKeys {
  return {
    keyids: stringsAt(role, 'keyids', where, true),
    threshold: integerAt(role, 'threshold', where, 1),
  };
}

export function parseHashes(parent: JsonObject, where: string): Hashes | undefined {
  const hashes = optionalObjectAt(parent, 'hashes', where);
  if (hashes === undefined) return undefined;
  const result = new Map<string, string>();
  for (const algorithm of memberNames(hashes)) {
    result.set(algorithm, stringAt(hashes, algorithm, `${where} hashes`));
  }
  if (result.size === 0) throw malformed(where, '"hashes" is empty');
  return result;
}

/** META_FILE (TUF spec §4.4): version, and optionally length and hashes. */
export function parseMetaFile(value: JsonObject, where: string): MetaFile {
  const hashes = parseHashes(value, where);
  return {
    version: integerAt(value, 'version', where, 1),
    ...(value['length'] === undefined ? {} : { length: integerAt(value, 'length', where, 0) }),
    ...(hashes === undefined ? {} : { hashes }),
  };
}
