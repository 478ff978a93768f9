/**
 * The update manifest payload (docs/PROTOCOL.md §2.2). `parseManifest` is a strict schema
 * check of bytes that were already signature-verified; it never touches the network or disk.
 */
import valid from 'semver/functions/valid.js';
import { compareNames, unsafeNameReason } from './artifact-name.js';
import { parseJsonObject, requiredField, type JsonObject } from './json-object.js';
import type { ChunkIndexRef, ManifestArtifact } from './manifest-artifact.js';
import { parsePackRef, parsePackTable, type PackInfo } from './pack-ref.js';
import { resolvePacks, wireArtifacts, type WireEntry } from './pack-wire.js';
import { ProtocolError } from './protocol-error.js';

export type { ChunkIndexRef, ManifestArtifact } from './manifest-artifact.js';

/** The largest index blob a signed entry may name: header plus 64 root entries (§2.6). */
export const MAX_CHUNK_INDEX_BYTES = 104 + 64 * 52;

export interface Manifest {
  readonly registry_version: string;
  readonly issued_at: string;
  readonly expires_at: string;
  readonly artifacts: readonly ManifestArtifact[];
  /** The release's notes, Markdown, signed with it (docs/PROTOCOL.md §2.2); optional. */
  readonly notes?: string;
}

/**
 * C0 but tab and line feed, DEL, C1, and the bidirectional marks, embeddings, overrides and
 * isolates: each could make the text shown differ from the text signed.
 */
function isRefusedControl(code: number): boolean {
  if (code === 0x09 || code === 0x0a) return false;
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  if (code === 0x200e || code === 0x200f) return true;
  return (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
}

/** Longest release notes accepted, in UTF-8 bytes. */
export const MAX_NOTES_BYTES = 16 * 1024;

/**
 * Why `notes` is not acceptable release-notes text, or null: a string of at most
 * MAX_NOTES_BYTES, with no control character but line feed and tab (a carriage return,
 * an escape sequence or a bidi override could make the shown text differ from the signed).
 */
export function notesProblem(notes: unknown): string | null {
  if (typeof notes !== 'string') return 'notes is not a string';
  if (new TextEncoder().encode(notes).length > MAX_NOTES_BYTES) {
    return `notes is over ${MAX_NOTES_BYTES} bytes`;
  }
  for (const char of notes) {
    if (isRefusedControl(char.codePointAt(0) ?? 0)) return 'notes holds a control character';
  }
  return null;
}

/** A parsed manifest with its timestamps as epoch milliseconds. */
export interface ParsedManifest extends Manifest {
  readonly issuedAtMs: number;
  readonly expiresAtMs: number;
}

export { wireArtifacts } from './pack-wire.js';

export const SHA256_HEX = /^[0-9a-f]{64}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

/** Hard ceiling on entries, whatever the client's own (lower) limit. */
export const MAX_ARTIFACTS_WIRE = 100_000;

export function isRfc3339(text: string): boolean {
  return RFC3339.test(text) && Number.isFinite(Date.parse(text));
}

/** A strict semver (no leading "v", no whitespace); build metadata is refused as ambiguous. */
export function isStrictSemver(text: string): boolean {
  return valid(text) === text && !text.includes('+');
}

function fail(message: string): never {
  throw new ProtocolError('MANIFEST_MALFORMED', message);
}

const field = (o: JsonObject, key: string, where: string): unknown => requiredField(o, key, where);

/** Where entry `i` is, for an error message: built only when one is thrown. */
const entryAt = (i: number): string => `artifacts[${i}]`;

/** `field` for entry `i`, its where built only for the error. */
function own(o: JsonObject, key: string, i: number): unknown {
  return Object.hasOwn(o, key) ? o[key] : field(o, key, entryAt(i));
}

function parseArtifact(value: unknown, i: number, packs: readonly PackInfo[]): ManifestArtifact {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(`${entryAt(i)} is not an object`);
  }
  const o = value as Record<string, unknown>;
  const name = own(o, 'name', i);
  const size = own(o, 'size', i);
  const sha256 = own(o, 'sha256', i);
  const url = own(o, 'url', i);
  if (typeof name !== 'string') fail(`${entryAt(i)}.name is not a string`);
  const reason = unsafeNameReason(name);
  if (reason !== undefined) {
    throw new ProtocolError('UNSAFE_NAME', `${entryAt(i)}.name ${JSON.stringify(name)} ${reason}`);
  }
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
    fail(`${entryAt(i)}.size is not a non-negative integer`);
  }
  if (typeof sha256 !== 'string' || !SHA256_HEX.test(sha256)) {
    throw new ProtocolError(
      'BAD_DIGEST',
      `${entryAt(i)}.sha256 is not 64 lowercase hex characters`,
    );
  }
  if (!isUrlText(url)) fail(`${entryAt(i)}.url is not a string of 1 to 2048 characters`);
  // Literals of a fixed shape, never a spread: a spread copy in this loop gave each of 10,000
  // entries a hidden class of its own, megabytes of heap (docs/UPDATER.md §11.1).
  const chunk = Object.hasOwn(o, 'chunk_index')
    ? parseChunkIndexRef(o.chunk_index, entryAt(i))
    : undefined;
  const pack = parsePackRef(o, size, packs, entryAt(i));
  if (chunk === undefined) {
    return pack === undefined ? { name, size, sha256, url } : { name, size, sha256, url, pack };
  }
  return pack === undefined
    ? { name, size, sha256, url, chunk_index: chunk }
    : { name, size, sha256, url, chunk_index: chunk, pack };
}

function isUrlText(url: unknown): url is string {
  return typeof url === 'string' && url.length > 0 && url.length <= 2048;
}

/** The optional `chunk_index` of an entry; unknown fields inside it are ignored like elsewhere. */
function parseChunkIndexRef(value: unknown, entry: string): ChunkIndexRef {
  const where = `${entry}.chunk_index`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(`${where} is not an object`);
  }
  const o = value as Record<string, unknown>;
  const sha256 = field(o, 'sha256', where);
  const size = field(o, 'size', where);
  const url = field(o, 'url', where);
  if (typeof sha256 !== 'string' || !SHA256_HEX.test(sha256)) {
    throw new ProtocolError('BAD_DIGEST', `${where}.sha256 is not 64 lowercase hex characters`);
  }
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 1) {
    fail(`${where}.size is not a positive integer`);
  }
  if (size > MAX_CHUNK_INDEX_BYTES) fail(`${where}.size is over ${MAX_CHUNK_INDEX_BYTES}`);
  if (!isUrlText(url)) fail(`${where}.url is not a string of 1 to 2048 characters`);
  if (!Object.hasOwn(o, 'list_url')) return { sha256, size, url };
  const listUrl = o.list_url;
  if (!isUrlText(listUrl)) fail(`${where}.list_url is not a string of 1 to 2048 characters`);
  return { sha256, size, url, list_url: listUrl };
}

/** How a payload's artifact list is read (see `parseArtifactList`). */
export interface ListOptions {
  /**
   * True only when the caller knows these exact payload bytes (by their SHA-256) already passed
   * every entry and set rule of `parseArtifactList`: the list is then taken as JSON.parse gave
   * it (an array within the wire ceiling), its entries not walked again (docs/UPDATER.md §3,
   * No-op runs). The top-level fields are checked strictly either way.
   */
  readonly listChecked?: boolean;
}

/**
 * Parses manifest JSON bytes. Unknown top-level and entry fields are ignored (they are signed,
 * so a newer server may add them); every known field is checked strictly.
 */
export function parseManifest(bytes: Uint8Array, options: ListOptions = {}): ParsedManifest {
  const o = parseJsonObject(bytes, 'manifest');
  const version = field(o, 'registry_version', 'manifest');
  const issued = field(o, 'issued_at', 'manifest');
  const expires = field(o, 'expires_at', 'manifest');
  const list = field(o, 'artifacts', 'manifest');
  if (typeof version !== 'string' || !isStrictSemver(version)) {
    throw new ProtocolError('BAD_VERSION', 'registry_version is not a strict semver');
  }
  if (typeof issued !== 'string' || !isRfc3339(issued)) fail('issued_at is not RFC 3339');
  if (typeof expires !== 'string' || !isRfc3339(expires)) fail('expires_at is not RFC 3339');
  const issuedAtMs = Date.parse(issued);
  const expiresAtMs = Date.parse(expires);
  if (expiresAtMs <= issuedAtMs) fail('expires_at is not after issued_at');
  const parsed = {
    registry_version: version,
    issued_at: issued,
    expires_at: expires,
    artifacts: parseArtifactList(list, options, parsePackTable(o['packs'])),
    issuedAtMs,
    expiresAtMs,
  };
  if (!Object.hasOwn(o, 'notes')) return parsed;
  const problem = notesProblem(o['notes']);
  if (problem !== null) fail(problem);
  return { ...parsed, notes: o['notes'] as string };
}

/**
 * The signed artifact list, shared by the manifest and the release payload (docs/PROTOCOL.md
 * §2.2, §2.7), with the payload's table of packs (§2.8): every entry checked, then the set
 * rules over the whole list. With `listChecked` (bytes known to have passed this before) the
 * entries are not walked again: the same bytes give the same verdict, so only the array
 * itself is looked at, and the pack of each entry that names one is looked up.
 */
export function parseArtifactList(
  list: unknown,
  options: ListOptions = {},
  packs: readonly PackInfo[] = [],
): ManifestArtifact[] {
  if (!Array.isArray(list)) fail('artifacts is not an array');
  if (list.length > MAX_ARTIFACTS_WIRE) fail(`more than ${MAX_ARTIFACTS_WIRE} artifacts`);
  if (options.listChecked === true) {
    return packs.length === 0
      ? (list as ManifestArtifact[])
      : resolvePacks(list as readonly WireEntry[], packs);
  }
  const artifacts = list.map((value: unknown, i) => parseArtifact(value, i, packs));
  checkNameSet(artifacts);
  return artifacts;
}

/**
 * Names are unique (also case-insensitively, for macOS and Windows file systems), sorted by
 * UTF-8 bytes, and no name is a directory prefix of another ("a" and "a/b" cannot both exist).
 */
function checkNameSet(artifacts: readonly ManifestArtifact[]): void {
  // One lower-casing per name and an indexOf walk for the directory prefixes: this runs for
  // every entry of a 10,000-artifact manifest inside the verify + plan budget (bench/). A
  // name in the directory of the name before it adds no prefix (sorted names come a
  // directory at a time), so a release of deep paths adds each directory once, not per file.
  const lowered: string[] = new Array<string>(artifacts.length);
  const folded = new Set<string>();
  const dirs = new Set<string>();
  let lastDir = '';
  for (let i = 0; i < artifacts.length; i++) {
    const name = (artifacts[i] as ManifestArtifact).name;
    if (i > 0) {
      const order = compareNames((artifacts[i - 1] as ManifestArtifact).name, name);
      if (order === 0) throw new ProtocolError('DUPLICATE_NAME', `duplicate name ${name}`);
      if (order > 0) throw new ProtocolError('UNSORTED_NAMES', `names are not sorted at ${name}`);
    }
    const lower = name.toLowerCase();
    if (folded.has(lower)) {
      throw new ProtocolError('DUPLICATE_NAME', `names differ only by case at ${name}`);
    }
    folded.add(lower);
    lowered[i] = lower;
    const end = lower.lastIndexOf('/');
    if (end === -1 || (end === lastDir.length && lower.startsWith(lastDir))) continue;
    for (let slash = lower.indexOf('/'); slash !== -1; slash = lower.indexOf('/', slash + 1)) {
      dirs.add(lower.slice(0, slash));
    }
    lastDir = lower.slice(0, end);
  }
  if (dirs.size === 0) return;
  for (let i = 0; i < artifacts.length; i++) {
    if (dirs.has(lowered[i] as string)) {
      const name = (artifacts[i] as ManifestArtifact).name;
      throw new ProtocolError('UNSAFE_NAME', `${name} is both a file and a directory`);
    }
  }
}

/** Serialises a manifest to the exact bytes that get signed (server side). */
export function encodeManifest(manifest: Manifest): Uint8Array {
  const { registry_version, issued_at, expires_at, artifacts, notes } = manifest;
  const body = { registry_version, issued_at, expires_at, ...wireArtifacts(artifacts) };
  return new TextEncoder().encode(JSON.stringify(notes === undefined ? body : { ...body, notes }));
}

/**
 * Resolves an artifact URL: an absolute http(s) URL as is, otherwise relative to the base URL
 * (treated as a directory, so a base path prefix is kept).
 */
export function resolveArtifactUrl(baseUrl: string, url: string): URL {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  let resolved: URL;
  try {
    resolved = new URL(url, base);
  } catch (cause) {
    // A signed but unparsable URL is a malformed manifest, never an unexpected TypeError.
    throw new ProtocolError('MANIFEST_MALFORMED', 'artifact URL does not parse', { cause });
  }
  if (resolved.protocol !== 'http:' && resolved.protocol !== 'https:') {
    throw new ProtocolError(
      'MANIFEST_MALFORMED',
      `artifact URL scheme ${resolved.protocol} refused`,
    );
  }
  return resolved;
}
