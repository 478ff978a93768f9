/**
 * The Range header of the artifact route (RFC 9110 §14). One range is served as 206; several
 * ranges are answered with the whole representation (200), which §14.2 allows ("a server MAY
 * ignore the Range header field"); a syntactically invalid Range is ignored the same way.
 */

export type RangeDecision =
  | { readonly kind: 'full' }
  | { readonly kind: 'partial'; readonly start: number; readonly end: number }
  | { readonly kind: 'unsatisfiable' };

const SINGLE = /^bytes=(\d{0,16})-(\d{0,16})$/i;

/**
 * Decides how to answer `range` for a representation of `size` bytes. `end` is inclusive.
 * @example decideRange('bytes=-10', 100) // { kind: 'partial', start: 90, end: 99 }
 */
export function decideRange(range: string | undefined, size: number): RangeDecision {
  if (range === undefined) return { kind: 'full' };
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
