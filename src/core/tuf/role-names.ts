/**
 * How role names and target paths become URL path parts (TUF spec §5.5.1, §5.6.1, §5.7.3).
 * A delegated role name is a free string ("../x", "?", "#"): it is percent-encoded whole, as
 * Python's `urllib.parse.quote(name, safe="")` does, so it stays one path segment.
 */
import { TufError, type TargetFile } from '#protocol/tuf/index.js';

/** Every character but A-Z a-z 0-9 `_ . - ~` percent-encoded as UTF-8, uppercase hex. */
export function quoteSegment(name: string): string {
  let encoded: string;
  try {
    encoded = encodeURIComponent(name);
  } catch (cause) {
    throw new TufError('UNSAFE_NAME', 'name is not well-formed Unicode', undefined, { cause });
  }
  return encoded.replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
}

/** `base` with exactly one trailing slash. */
export function withSlash(base: string): string {
  return base.endsWith('/') ? base : `${base}/`;
}

/** TUF spec §5.5.1 / §5.6.1: VERSION.ROLE.json under consistent snapshots, else ROLE.json. */
export function metadataFileName(role: string, version: number | undefined): string {
  const name = `${quoteSegment(role)}.json`;
  return version === undefined ? name : `${version}.${name}`;
}

/**
 * TUF spec §5.7.3: under consistent snapshots a target file is fetched as
 * DIR/HASH.BASENAME, HASH being the first hash snapshot lists; else as its path.
 */
export function targetFilePath(target: TargetFile, hashPrefixed: boolean): string {
  const first = target.hashes.values().next();
  if (!hashPrefixed || first.done === true) return target.path;
  const slash = target.path.lastIndexOf('/');
  const dir = target.path.slice(0, slash + 1);
  return `${dir}${first.value}.${target.path.slice(slash + 1)}`;
}
