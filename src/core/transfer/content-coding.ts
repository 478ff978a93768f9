/**
 * The content codings an answer may come in (docs/PROTOCOL.md §2.7.6, Content coding): none or
 * `identity` always; `gzip` only when the request offered it and the fetcher inflated it. Any
 * other coding (br, deflate, a list of codings...) is refused before a byte is read: its bytes
 * are not the signed bytes, and verifying them would only fail later with a misleading code.
 */
import { UpdateError } from '../errors.js';
import type { FetchResponse } from '../ports.js';

/** True when a Content-Encoding header names gzip alone (RFC 9110 §8.4.1.3: x-gzip too). */
export function isGzipCoding(header: string | undefined): boolean {
  if (header === undefined) return false;
  const coding = header.trim().toLowerCase();
  return coding === 'gzip' || coding === 'x-gzip';
}

/** Refuses (CONTENT_ENCODING) an answer whose coding was not asked for or not undone. */
export function checkContentCoding(
  response: FetchResponse,
  acceptGzip: boolean,
  what: string,
  url: string,
): void {
  const header = response.header('content-encoding');
  if (header === undefined) return;
  const coding = header.trim().toLowerCase();
  if (coding === '' || coding === 'identity') return;
  const gzip = isGzipCoding(coding);
  if (gzip && acceptGzip && response.inflated === true) return;
  throw new UpdateError(
    'CONTENT_ENCODING',
    gzip && acceptGzip
      ? `${what}: gzip answer not inflated by the fetcher`
      : `${what}: content coding ${JSON.stringify(header.slice(0, 64))} not asked for`,
    { details: { url } },
  );
}
