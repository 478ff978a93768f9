/**
 * Packs on the wire (docs/PROTOCOL.md §2.8): a small artifact is also stored as a member of a
 * pack, a blob that is the plain concatenation of its members. The signed payload lists each
 * pack once in a table (`packs`: its SHA-256, exact size and URL), and an entry names its pack
 * by index (`pack`) and where the member starts (`pack_offset`); the member's length is the
 * artifact's signed size and its bytes are checked against the artifact's signed SHA-256, so
 * the pack itself needs no trust of its own. Parsed, an entry carries the whole reference
 * (`PackRef`), its strings shared with the table.
 */
import { isJsonObject, type JsonObject } from './json-object.js';
import { ProtocolError } from './protocol-error.js';

/** One row of the table of packs. */
export interface PackInfo {
  /** Lowercase hex SHA-256 of the whole pack (it names the blob; the client never checks it). */
  readonly sha256: string;
  /** Exact size of the pack in bytes (a range answer states it as the total). */
  readonly size: number;
  /** Absolute URL, or a path relative to the base URL, of the pack. */
  readonly url: string;
}

/** An entry's pack, resolved through the table. */
export interface PackRef extends PackInfo {
  /** First byte of the member in the pack. */
  readonly offset: number;
}

/** The largest pack an entry may name. */
export const MAX_PACK_BYTES = 256 * 1024 * 1024;
/** The largest member: a client holds one member in memory while it is checked. */
export const MAX_PACK_MEMBER_BYTES = 1024 * 1024;
/** Hard ceiling on rows of the table (every pack has at least one member). */
export const MAX_PACKS_WIRE = 100_000;

const HEX64 = /^[0-9a-f]{64}$/;

function fail(message: string): never {
  throw new ProtocolError('MANIFEST_MALFORMED', message);
}

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n);

function parsePackInfo(value: unknown, where: string): PackInfo {
  if (!isJsonObject(value)) fail(`${where} is not an object`);
  for (const key of ['sha256', 'size', 'url']) {
    if (!Object.hasOwn(value, key)) fail(`${where}.${key} is missing`);
  }
  const { sha256, size, url } = value;
  if (typeof sha256 !== 'string' || !HEX64.test(sha256)) {
    throw new ProtocolError('BAD_DIGEST', `${where}.sha256 is not 64 lowercase hex characters`);
  }
  if (!isCount(size) || size < 1) fail(`${where}.size is not a positive integer`);
  if (size > MAX_PACK_BYTES) fail(`${where}.size is over ${MAX_PACK_BYTES}`);
  if (typeof url !== 'string' || url.length === 0 || url.length > 2048) {
    fail(`${where}.url is not a string of 1 to 2048 characters`);
  }
  return { sha256, size, url };
}

/**
 * The optional table of packs (`packs` of a payload, `custom.packs` of TUF targets): absent
 * is an empty table. Unknown fields of a row are ignored like elsewhere; every known one is
 * checked strictly.
 */
export function parsePackTable(value: unknown, where = 'packs'): PackInfo[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) fail(`${where} is not an array`);
  if (value.length > MAX_PACKS_WIRE) fail(`${where} has more than ${MAX_PACKS_WIRE} rows`);
  return value.map((row: unknown, i) => parsePackInfo(row, `${where}[${i}]`));
}

/**
 * The pack of entry `o` (`size` bytes, at `entry` for messages), or undefined when it names
 * none. `pack` is an index into `packs`, `pack_offset` the member's first byte: one without
 * the other is refused, and the member must lie inside the pack.
 */
export function parsePackRef(
  o: JsonObject,
  size: number,
  packs: readonly PackInfo[],
  entry: string,
): PackRef | undefined {
  const hasPack = Object.hasOwn(o, 'pack');
  if (hasPack !== Object.hasOwn(o, 'pack_offset')) {
    fail(`${entry}: pack and pack_offset come together`);
  }
  if (!hasPack) return undefined;
  const index = o['pack'];
  const offset = o['pack_offset'];
  if (!isCount(index) || index < 0 || index >= packs.length) {
    fail(`${entry}.pack is not an index into the table of packs`);
  }
  if (!isCount(offset) || offset < 0) fail(`${entry}.pack_offset is not a non-negative integer`);
  if (size < 1) fail(`${entry}: an empty artifact has no pack`);
  if (size > MAX_PACK_MEMBER_BYTES) fail(`${entry}: member over ${MAX_PACK_MEMBER_BYTES}`);
  const info = packs[index] as PackInfo;
  if (offset + size > info.size) fail(`${entry}: the member ends past the pack`);
  return { sha256: info.sha256, size: info.size, url: info.url, offset };
}

/** The wire form of a list's packs: the table, and each entry's index into it. */
export interface PackTable {
  readonly packs: PackInfo[];
  /** Index into `packs` of entry i's pack, or -1. */
  readonly indexOf: readonly number[];
}

/**
 * The table for `refs` (one per entry, undefined for none): one row per distinct pack (by
 * digest, size and URL alike), in the order of first use.
 */
export function packTableOf(refs: readonly (PackRef | undefined)[]): PackTable {
  const packs: PackInfo[] = [];
  const rows = new Map<string, number>();
  const indexOf = refs.map((ref) => {
    if (ref === undefined) return -1;
    const key = `${ref.sha256} ${ref.size} ${ref.url}`;
    let row = rows.get(key);
    if (row === undefined) {
      row = packs.length;
      packs.push({ sha256: ref.sha256, size: ref.size, url: ref.url });
      rows.set(key, row);
    }
    return row;
  });
  return { packs, indexOf };
}
