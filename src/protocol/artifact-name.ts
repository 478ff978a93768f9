/**
 * Safe artifact names. A name comes from the network, so it is checked before it can ever be
 * joined to a path: relative POSIX, no empty, "." or ".." segments, no backslash, colon, NUL or
 * other control character, no leading "/" and no drive letter. See docs/PROTOCOL.md §Names.
 */
export const MAX_NAME_BYTES = 1024;
export const MAX_SEGMENT_BYTES = 255;

// Windows device names are unsafe as any segment's stem on that platform (CON, NUL.txt, ...).
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;
// eslint-disable-next-line no-control-regex -- control characters are exactly what we refuse
const FORBIDDEN_CHAR = /[\u0000-\u001f\u007f\\:*?"<>|]/;

/** Returns why `name` is unsafe, or `undefined` when it is a safe relative POSIX path. */
export function unsafeNameReason(name: string): string | undefined {
  if (name.length === 0) return 'is empty';
  if (Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES)
    return `is longer than ${MAX_NAME_BYTES} bytes`;
  if (name.startsWith('/')) return 'is absolute';
  if (/^[A-Za-z]:/.test(name)) return 'starts with a drive letter';
  if (FORBIDDEN_CHAR.test(name))
    return 'contains a backslash, colon, wildcard or control character';
  if (name.normalize('NFC') !== name) return 'is not in Unicode NFC form';
  for (const segment of name.split('/')) {
    if (segment === '') return 'has an empty segment';
    if (segment === '.' || segment === '..') return 'has a "." or ".." segment';
    if (Buffer.byteLength(segment, 'utf8') > MAX_SEGMENT_BYTES)
      return 'has a segment over 255 bytes';
    if (segment.endsWith('.') || segment.endsWith(' '))
      return 'has a segment ending in "." or space';
    if (WINDOWS_DEVICE.test(segment)) return 'names a Windows device';
  }
  return undefined;
}

export function isSafeArtifactName(name: string): boolean {
  return unsafeNameReason(name) === undefined;
}

/** The manifest's sort order: byte order of the UTF-8 encodings (language-neutral). */
export function compareNames(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
