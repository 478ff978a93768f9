/**
 * Typed readers of JSON members for the metadata parsers: each refuses a missing or mistyped
 * member with METADATA_MALFORMED, naming where it is.
 */
import { isJsonObject, type JsonObject, type JsonValue } from './strict-json.js';
import { TufError } from './tuf-error.js';

export function malformed(where: string, what: string): TufError {
  return new TufError('METADATA_MALFORMED', `${where}: ${what}`, { where });
}

export function objectAt(parent: JsonObject, name: string, where: string): JsonObject {
  const value = parent[name];
  if (!isJsonObject(value)) throw malformed(where, `"${name}" must be an object`);
  return value;
}

export function optionalObjectAt(
  parent: JsonObject,
  name: string,
  where: string,
): JsonObject | undefined {
  return parent[name] === undefined ? undefined : objectAt(parent, name, where);
}

export function stringAt(parent: JsonObject, name: string, where: string): string {
  const value = parent[name];
  if (typeof value !== 'string') throw malformed(where, `"${name}" must be a string`);
  return value;
}

export function booleanAt(parent: JsonObject, name: string, where: string): boolean {
  const value = parent[name];
  if (typeof value !== 'boolean') throw malformed(where, `"${name}" must be a boolean`);
  return value;
}

/** An integer member no smaller than `min`. */
export function integerAt(parent: JsonObject, name: string, where: string, min: number): number {
  const value = parent[name];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw malformed(where, `"${name}" must be an integer >= ${min}`);
  }
  return value;
}

/** An array of strings; `unique` refuses repeats. */
export function stringsAt(
  parent: JsonObject,
  name: string,
  where: string,
  unique: boolean,
): readonly string[] {
  const value: JsonValue | undefined = parent[name];
  if (!Array.isArray(value)) throw malformed(where, `"${name}" must be an array`);
  const items = value as readonly JsonValue[];
  const strings = items.map((item) => {
    if (typeof item !== 'string') throw malformed(where, `"${name}" must hold strings`);
    return item;
  });
  if (unique && new Set(strings).size !== strings.length) {
    throw malformed(where, `"${name}" repeats an entry`);
  }
  return strings;
}

/** Own member names in the order written. */
export function memberNames(value: JsonObject): string[] {
  return Object.keys(value);
}
