/**
 * Strong entity tags and If-None-Match (RFC 9110 §8.8.3, §13.1.2) for answers held as whole
 * buffers: the tag is a digest of the exact bytes, so any change of the bytes (a re-signed
 * freshness statement included) changes it. Computed once per buffer.
 */
import { createHash } from 'node:crypto';

const tags = new WeakMap<Buffer, string>();

/** `"<base64url SHA-256 of bytes>"`, kept per buffer object. */
export function entityTagOf(bytes: Buffer): string {
  let tag = tags.get(bytes);
  if (tag === undefined) {
    tag = `"${createHash('sha256').update(bytes).digest('base64url')}"`;
    tags.set(bytes, tag);
  }
  return tag;
}

/**
 * True when an If-None-Match header matches `tag`: `*`, or any listed tag under the weak
 * comparison RFC 9110 §13.1.2 prescribes for this header (a `W/` prefix is ignored).
 */
export function noneMatch(header: string | string[] | undefined, tag: string): boolean {
  if (header === undefined) return false;
  const list = Array.isArray(header) ? header.join(',') : header;
  return list.split(',').some((raw) => {
    const item = raw.trim();
    return item === '*' || (item.startsWith('W/') ? item.slice(2) : item) === tag;
  });
}
