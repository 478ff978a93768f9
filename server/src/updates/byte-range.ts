/**
 * The Range header of the artifact route (RFC 9110 §14). One range is served as 206; several
 * (at most MAX_RANGES, ascending and not overlapping, as a chunked download asks for them:
 * docs/PROTOCOL.md §2.6) as 206 multipart/byteranges (§14.6). Anything else, a syntactically
 * invalid Range, too many, overlapping or unordered ranges (the "many small overlapping
 * ranges" attack of §14.2), is ignored: the whole representation (200), as §14.2 allows.
 */

export type RangeDecision =
  | { readonly kind: 'full' }
  | { readonly kind: 'partial'; readonly start: number; readonly end: number }
  | { readonly kind: 'multipart'; readonly ranges: readonly (readonly [number, number])[] }
  | { readonly kind: 'unsatisfiable' };

/** Most ranges answered in one multipart response. */
export const MAX_RANGES = 256;

const SINGLE = /^bytes=(\d{0,16})-(\d{0,16})$/i;

/**
 * Decides how to answer `range` for a representation of `size` bytes. `end` is inclusive.
 * @example decideRange('bytes=-10', 100) // { kind: 'partial', start: 90, end: 99 }
 */
export function decideRange(range: string | undefined, size: number): RangeDecision {
  if (range === undefined) return { kind: 'full' };
  if (range.includes(',')) return decideRanges(range, size);
  const m = SINGLE.exec(range.trim());
  if (m === null) return { kind: 'full' };
  const [, first = '', last = ''] = m;
  if (first === '' && last === '') return { kind: 'full' };
  if (first === '') {
    // Suffix range: the last N bytes (§14.1.2). N = 0 cannot be satisfied. On an empty body a
    // non-zero suffix is satisfiable (§14.1.1), but no Content-Range names zero bytes: ignore it.
    const n = Number(last);
    if (n === 0) return { kind: 'unsatisfiable' };
    if (size === 0) return { kind: 'full' };
    return { kind: 'partial', start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Number(last);
  if (last !== '' && end < start) return { kind: 'full' }; // invalid: ignored (§14.1.1)
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end: Math.min(end, size - 1) };
}

const SPEC = /^(\d{1,16})-(\d{1,16})$/;

/**
 * Several ranges: each `first-last` (no open or suffix ranges in a list), ascending and apart.
 * Ranges past the end are dropped (§14.1.1: satisfiable if any is); one left is a plain 206.
 */
function decideRanges(range: string, size: number): RangeDecision {
  const trimmed = range.trim();
  if (!/^bytes=/i.test(trimmed)) return { kind: 'full' };
  const specs = trimmed.slice(6).split(',');
  if (specs.length > MAX_RANGES) return { kind: 'full' };
  const ranges: [number, number][] = [];
  let previousEnd = -1;
  for (const spec of specs) {
    const m = SPEC.exec(spec.trim());
    if (m === null) return { kind: 'full' };
    const start = Number(m[1]);
    const end = Number(m[2]);
    if (end < start || start <= previousEnd) return { kind: 'full' };
    previousEnd = end;
    if (start < size) ranges.push([start, Math.min(end, size - 1)]);
  }
  if (ranges.length === 0) return { kind: 'unsatisfiable' };
  const [only] = ranges;
  if (ranges.length === 1 && only !== undefined) {
    return { kind: 'partial', start: only[0], end: only[1] };
  }
  return { kind: 'multipart', ranges };
}

/**
 * If-Range (RFC 9110 §13.1.5): the range applies only when the validator is our strong ETag.
 * A date (we send no Last-Modified) or another tag means "send the whole thing".
 */
export function ifRangeAllows(ifRange: string | undefined, etag: string): boolean {
  return ifRange === undefined || ifRange.trim() === etag;
}

/**
 * If-None-Match (RFC 9110 §13.1.2): true when the list names our ETag or is `*`. The weak
 * comparison is required here, so `W/"<digest>"` matches our strong `"<digest>"` too.
 */
export function ifNoneMatchHits(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((raw) => {
    const tag = raw.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}
