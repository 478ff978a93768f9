/**
 * One header of a response from its raw name/value list (node's `rawHeaders`), as node's
 * `IncomingMessage.headers` would give it.
 */

/**
 * Headers node keeps only the first of when repeated (its `IncomingMessage.headers` rules);
 * any other repeated header is joined with ", ", as node joins it.
 */
const FIRST_WINS = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
]);

/**
 * One header (`name` in lower case) from the raw name/value list, as `response.headers` would
 * give it. Why not that object: node builds it on first use by normalising every header line,
 * which cost more than the few lookups a download makes (docs/UPDATER.md §8, "Many small
 * artifacts").
 */
export function headerOf(raw: readonly string[], name: string): string | undefined {
  let found: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const key = raw[i] as string;
    if (key.length !== name.length || key.toLowerCase() !== name) continue;
    const value = raw[i + 1] as string;
    if (found === undefined) found = value;
    else if (FIRST_WINS.has(name)) break;
    else found = `${found}, ${value}`;
  }
  return found;
}
