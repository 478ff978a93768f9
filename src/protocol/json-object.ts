/**
 * Strict decoding of a signed JSON payload into an object: UTF-8 (fatal on bad bytes), JSON,
 * and a plain object at the top. Shared by every payload parser so they refuse alike.
 */
import { ProtocolError, type ProtocolErrorCode } from './protocol-error.js';

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Decodes `bytes` as a JSON object, or throws `code` naming `what`. */
export function parseJsonObject(
  bytes: Uint8Array,
  what: string,
  code: ProtocolErrorCode = 'MANIFEST_MALFORMED',
): JsonObject {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (cause) {
    throw new ProtocolError(code, `${what} is not UTF-8 JSON`, { cause });
  }
  if (!isJsonObject(json)) throw new ProtocolError(code, `${what} is not a JSON object`);
  return json;
}

/** The value of a required field; a missing one is `code` (present-but-undefined cannot occur in JSON). */
export function requiredField(
  o: JsonObject,
  key: string,
  where: string,
  code: ProtocolErrorCode = 'MANIFEST_MALFORMED',
): unknown {
  if (!Object.hasOwn(o, key)) throw new ProtocolError(code, `${where}.${key} is missing`);
  return o[key];
}
