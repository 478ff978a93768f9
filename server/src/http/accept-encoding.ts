/**
 * Accept-Encoding as RFC 9110 §12.5.3 reads it, for the one question the server asks: may this
 * answer be sent gzip-coded (docs/PROTOCOL.md §2.7.6, Content coding)? A coding listed with
 * `q=0` is refused, `*` stands for every coding not listed, and no header means identity only
 * (a client that says nothing gets the bytes as they are; §12.5.3 allows either, and the
 * updater's own requests for artifacts say `identity`).
 */

/** A qvalue (RFC 9110 §12.4.2): 0 to 1 with at most three decimals; anything else is 0. */
function qvalueOf(text: string): number {
  const value = text.trim();
  return /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(value) ? Number(value) : 0;
}

/** True when the request's Accept-Encoding lets the answer be gzip-coded. */
export function acceptsGzip(header: string | readonly string[] | undefined): boolean {
  if (header === undefined) return false;
  const list = typeof header === 'string' ? header : header.join(',');
  let gzip: number | undefined;
  let star: number | undefined;
  for (const item of list.split(',')) {
    const [name = '', ...params] = item.split(';');
    const coding = name.trim().toLowerCase();
    if (coding === '') continue;
    let q = 1;
    for (const param of params) {
      const eq = param.indexOf('=');
      if (eq >= 0 && param.slice(0, eq).trim().toLowerCase() === 'q') {
        q = qvalueOf(param.slice(eq + 1));
      }
    }
    // RFC 9110 §8.4.1.3: x-gzip is gzip.
    if (coding === 'gzip' || coding === 'x-gzip') gzip = Math.max(gzip ?? 0, q);
    else if (coding === '*') star = q;
  }
  return (gzip ?? star ?? 0) > 0;
}
