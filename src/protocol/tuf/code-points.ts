/**
 * The member order of canonical JSON (TUF spec §4.2): names sorted by Unicode code point. Its
 * own file so the strict reader can tell canonical text as it reads it (strict-json.ts).
 */

/**
 * Sorts by Unicode code point, as Python's `sorted` does on str: JavaScript's default sort
 * compares UTF-16 units, which orders astral characters before U+E000..U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  const shared = Math.min(a.length, b.length);
  for (let i = 0; i < shared; i += 1) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // UTF-16 order is code point order unless a surrogate is involved.
    if (!isSurrogate(x) && !isSurrogate(y)) return x - y;
    return compareFrom(a, b, i);
  }
  return a.length - b.length;
}

const isSurrogate = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdfff;

/** Code point order from unit `start`, where the units first differ (a pair starts there). */
function compareFrom(a: string, b: string, start: number): number {
  // The equal units before `start` may end with a high surrogate whose pair differs.
  const from = start > 0 && isSurrogate(a.charCodeAt(start - 1)) ? start - 1 : start;
  const left = Array.from(a.slice(from));
  const right = Array.from(b.slice(from));
  const shared = Math.min(left.length, right.length);
  for (let i = 0; i < shared; i += 1) {
    const diff = (left[i]?.codePointAt(0) ?? 0) - (right[i]?.codePointAt(0) ?? 0);
    if (diff !== 0) return diff;
  }
  return left.length - right.length;
}
