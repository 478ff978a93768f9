/**
 * Safe artifact names. A name comes from the network, so it is checked before it can ever be
 * joined to a path: relative POSIX, no empty, "." or ".." segments, no backslash, colon, NUL or
 * other control character, no leading "/" and no drive letter. Refusal codes: docs/PROTOCOL.md §2.3 (publishing) and
 * §2.5 (the client).
 */
export const MAX_NAME_BYTES = 1024;
export const MAX_SEGMENT_BYTES = 255;

// Windows device names are unsafe as any segment's stem on that platform (CON, NUL.txt, ...).
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;
// eslint-disable-next-line no-control-regex -- control characters are exactly what we refuse
const FORBIDDEN_CHAR = /[\u0000-\u001f\u007f\\:*?"<>|]/;

// Printable ASCII: one byte per character and already in NFC, so both costly checks are skipped.
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Returns why `name` is unsafe, or `undefined` when it is a safe relative POSIX path. */
export function unsafeNameReason(name: string): string | undefined {
  if (name.length === 0) return 'is empty';
  const ascii = PRINTABLE_ASCII.test(name);
  if ((ascii ? name.length : Buffer.byteLength(name)) > MAX_NAME_BYTES)
    return `is longer than ${MAX_NAME_BYTES} bytes`;
  if (name.startsWith('/')) return 'is absolute';
  if (/^[A-Za-z]:/.test(name)) return 'starts with a drive letter';
  if (FORBIDDEN_CHAR.test(name))
    return 'contains a backslash, colon, wildcard or control character';
  if (!ascii && name.normalize('NFC') !== name) return 'is not in Unicode NFC form';
  for (const segment of name.split('/')) {
    if (segment === '') return 'has an empty segment';
    if (segment === '.' || segment === '..') return 'has a "." or ".." segment';
    if ((ascii ? segment.length : Buffer.byteLength(segment)) > MAX_SEGMENT_BYTES)
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

const isSurrogate = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdfff;

/** The manifest's sort order: byte order of the UTF-8 encodings (language-neutral). */
export function compareNames(a: string, b: string): number {
  // UTF-8 preserves code point order, and UTF-16 units equal code points outside the
  // surrogate range: compare units directly and fall back to the bytes only near a surrogate.
  const n = Math.min(a.length, b.length);
  let nearSurrogate = false;
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (isSurrogate(x) || isSurrogate(y)) {
      nearSurrogate = true;
      break;
    }
    return x < y ? -1 : 1;
  }
  if (!nearSurrogate && !(n > 0 && isSurrogate(a.charCodeAt(n - 1)))) {
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  }
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
