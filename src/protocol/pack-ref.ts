/**
 * The pack reference of an artifact entry (docs/PROTOCOL.md §2.8): a small artifact is also
 * stored as a member of a pack, a blob that is the plain concatenation of its members. The
 * entry names the pack (its SHA-256, exact size and URL) and where the member starts; the
 * member's length is the artifact's signed size and its bytes are checked against the
 * artifact's signed SHA-256, so the pack itself needs no trust of its own.
 */
import { ProtocolError } from './protocol-error.js';

export interface PackRef {
  /** Lowercase hex SHA-256 of the whole pack (it names the blob; the client never checks it). */
  readonly sha256: string;
  /** Exact size of the pack in bytes (a range answer states it as the total). */
  readonly size: number;
  /** Absolute URL, or a path relative to the base URL, of the pack. */
  readonly url: string;
  /** First byte of the member in the pack. */
  readonly offset: number;
}

/** The largest pack an entry may name. */
export const MAX_PACK_BYTES = 256 * 1024 * 1024;
/** The largest member: a client holds one member in memory while it is checked. */
export const MAX_PACK_MEMBER_BYTES = 1024 * 1024;

const HEX64 = /^[0-9a-f]{64}$/;

function fail(message: string): never {
  throw new ProtocolError('MANIFEST_MALFORMED', message);
}

/**
 * The optional `pack` of an entry of `memberSize` bytes, at `entry` (for messages). Unknown
 * fields inside it are ignored like elsewhere; every known one is checked strictly, and the
 * member must lie inside the pack.
 */
export function parsePackRef(value: unknown, memberSize: number, entry: string): PackRef {
  const where = `${entry}.pack`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(`${where} is not an object`);
  }
  const o = value as Record<string, unknown>;
  const { sha256, size, url, offset } = o;
  for (const key of ['sha256', 'size', 'url', 'offset']) {
    if (!Object.hasOwn(o, key)) fail(`${where}.${key} is missing`);
  }
  if (typeof sha256 !== 'string' || !HEX64.test(sha256)) {
    throw new ProtocolError('BAD_DIGEST', `${where}.sha256 is not 64 lowercase hex characters`);
  }
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 1) {
    fail(`${where}.size is not a positive integer`);
  }
  if (size > MAX_PACK_BYTES) fail(`${where}.size is over ${MAX_PACK_BYTES}`);
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) {
    fail(`${where}.offset is not a non-negative integer`);
  }
  if (typeof url !== 'string' || url.length === 0 || url.length > 2048) {
    fail(`${where}.url is not a string of 1 to 2048 characters`);
  }
  if (memberSize < 1) fail(`${where}: an empty artifact has no pack`);
  if (memberSize > MAX_PACK_MEMBER_BYTES) fail(`${where}: member over ${MAX_PACK_MEMBER_BYTES}`);
  if (offset + memberSize > size) fail(`${where}: the member ends past the pack`);
  return { sha256, size, url, offset };
}
