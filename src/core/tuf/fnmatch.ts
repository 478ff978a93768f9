/**
 * One path segment against one shell-style pattern segment, as Python's fnmatch.fnmatchcase
 * reads it (the reference TUF implementation matches "paths" this way, TUF spec §4.5): `*` any
 * run, `?` one character, `[seq]` / `[!seq]` a class; case-sensitive; no `/` ever appears
 * because the caller splits on it.
 */
const cache = new Map<string, RegExp>();
const MAX_CACHED = 256;

export function fnmatchSegment(segment: string, pattern: string): boolean {
  let regex = cache.get(pattern);
  if (regex === undefined) {
    regex = compile(pattern);
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(pattern, regex);
  }
  return regex.test(segment);
}

/** Escapes a literal; `inClass` also escapes `-` (allowed only there under the `u` flag). */
/**
 * A class JavaScript cannot build (a reversed range such as `[z-a]`) matches nothing, as in
 * Python, where such a range is empty.
 */
function compile(pattern: string): RegExp {
  try {
    return new RegExp(`^${translate(pattern)}$`, 'su');
  } catch {
    return /(?!)/;
  }
}

function escapeRegex(text: string, inClass = false): string {
  return text.replace(inClass ? /[\\^$.*+?()[\]{}|/-]/g : /[\\^$.*+?()[\]{}|/]/g, (c) => `\\${c}`);
}

function translate(pattern: string): string {
  const chars = Array.from(pattern);
  let out = '';
  for (let i = 0; i < chars.length; i += 1) {
    const c = chars[i] ?? '';
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '[') {
      const end = classEnd(chars, i);
      if (end < 0) out += '\\[';
      else {
        out += classRegex(chars.slice(i + 1, end));
        i = end;
      }
    } else out += escapeRegex(c);
  }
  return out;
}

/** Index of the `]` closing the class opened at `open`, or -1 (then `[` is a literal). */
function classEnd(chars: readonly string[], open: number): number {
  let j = open + 1;
  if (chars[j] === '!') j += 1;
  if (chars[j] === ']') j += 1;
  while (j < chars.length && chars[j] !== ']') j += 1;
  return j < chars.length ? j : -1;
}

function classRegex(body: readonly string[]): string {
  const negate = body[0] === '!';
  const items = negate ? body.slice(1) : body;
  let out = '';
  for (let k = 0; k < items.length; k += 1) {
    const c = items[k] ?? '';
    const next = items[k + 2];
    if (items[k + 1] === '-' && next !== undefined) {
      out += `${escapeRegex(c, true)}-${escapeRegex(next, true)}`;
      k += 2;
    } else out += escapeRegex(c, true);
  }
  if (out === '') return negate ? '.' : '(?!)';
  return negate ? `[^${out}]` : `[${out}]`;
}
