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
  return isPlainSafeName(name) ? undefined : reasonOf(name);
}

/** The rules below, each in its order, so that a name with several faults names the first. */
function reasonOf(name: string): string | undefined {
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

/** 1 for each code unit a name may hold as is: printable ASCII but FORBIDDEN_CHAR's `\\:*?"<>|`. */
const PLAIN = new Uint8Array(128).map((_, c) =>
  c >= 0x20 && c <= 0x7e && !'\\:*?"<>|'.includes(String.fromCharCode(c)) ? 1 : 0,
);
const SLASH = 0x2f;
const DOT = 0x2e;
const SPACE = 0x20;

/**
 * True only for a printable-ASCII name that `reasonOf` would pass: one walk over its code
 * units with no allocation, where `reasonOf` runs five regular expressions and splits the
 * name (a 10,000-artifact manifest checks every name on every run, docs/UPDATER.md §3, No-op
 * runs). Anything it does not positively recognise (non-ASCII, any fault) goes to `reasonOf`,
 * which decides; a test compares both on generated names.
 */
function isPlainSafeName(name: string): boolean {
  const n = name.length;
  if (n === 0 || n > MAX_NAME_BYTES) return false;
  let start = 0;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? name.charCodeAt(i) : SLASH;
    if (c !== SLASH) {
      if (c > 0x7f || PLAIN[c] !== 1) return false;
      continue;
    }
    if (!isPlainSafeSegment(name, start, i)) return false;
    start = i + 1;
  }
  return true;
}

/** `name[start, end)` as a segment `reasonOf` passes (its characters already checked). */
function isPlainSafeSegment(name: string, start: number, end: number): boolean {
  const length = end - start;
  if (length === 0 || length > MAX_SEGMENT_BYTES) return false;
  const last = name.charCodeAt(end - 1);
  if (last === DOT || last === SPACE) return false; // also "." and ".."
  // A Windows device stem (con, nul.txt, com1.tar.gz) is 3 or 4 characters before any dot.
  const dot = name.indexOf('.', start);
  const stem = (dot === -1 || dot > end ? end : dot) - start;
  return (stem !== 3 && stem !== 4) || !WINDOWS_DEVICE.test(name.slice(start, end));
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
