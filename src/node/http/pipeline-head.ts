/**
 * The strict response-head parser of a pipelined connection (docs/UPDATER.md §5, "Pipelined
 * GETs"): it accepts only the answer it can frame without doubt, `HTTP/1.1 200` with one
 * Content-Length and no Transfer-Encoding, and calls everything else odd, which sends the
 * request back to node:http (pipeline-pool.ts). It never guesses a body's end.
 */

/** Bytes a response head may take, status line and CRLFCRLF included (node's default too). */
export const HEAD_CAP_BYTES = 16 * 1024;

export interface PlainHead {
  readonly status: 200;
  /** Name/value pairs in order, as node's `rawHeaders`. */
  readonly rawHeaders: readonly string[];
  readonly contentLength: number;
  /** The server said `Connection: close`: nothing after this answer comes on the socket. */
  readonly close: boolean;
}

const STATUS_LINE = /^HTTP\/1\.1 200 [\t\x20-\x7e\x80-\xff]*$/;
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const DIGITS = /^[0-9]{1,15}$/;
const SP = 0x20;
const HTAB = 0x09;

/**
 * A field's value: the line after `colon` without its leading and trailing optional
 * whitespace, SP and HTAB only (RFC 9110 §5.5, §5.6.3). A loop, not a regex replace: it runs
 * for every header line of every answer (docs/UPDATER.md §10.5).
 */
function fieldValue(line: string, colon: number): string {
  let start = colon + 1;
  let end = line.length;
  for (let c = line.charCodeAt(start); start < end && (c === SP || c === HTAB);) {
    c = line.charCodeAt(++start);
  }
  for (let c = line.charCodeAt(end - 1); end > start && (c === SP || c === HTAB);) {
    c = line.charCodeAt(--end - 1);
  }
  return line.slice(start, end);
}

/**
 * Parses a head (latin1 text up to, not including, its closing CRLFCRLF); undefined when it is
 * anything but a plain 200 with a Content-Length (a 1xx, another status, chunked coding, a
 * folded or malformed line, conflicting lengths).
 */
export function parsePlainHead(text: string): PlainHead | undefined {
  const lines = text.split('\r\n');
  if (!STATUS_LINE.test(lines[0] ?? '')) return undefined;
  const rawHeaders: string[] = [];
  let contentLength = -1;
  let close = false;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    const colon = line.indexOf(':');
    if (colon <= 0) return undefined;
    const name = line.slice(0, colon);
    // A bare CR or LF, NUL, or obs-fold: node's strict parser refuses those too.
    if (!FIELD_NAME.test(name) || /[\r\n\0]/.test(line)) return undefined;
    const value = fieldValue(line, colon);
    const lower = name.toLowerCase();
    if (lower === 'transfer-encoding') return undefined;
    if (lower === 'content-length') {
      if (!DIGITS.test(value)) return undefined;
      const length = Number(value);
      if (contentLength >= 0 && contentLength !== length) return undefined;
      contentLength = length;
    } else if (lower === 'connection' && /(^|,)\s*close\s*(,|$)/i.test(value)) {
      close = true;
    }
    rawHeaders.push(name, value);
  }
  if (contentLength < 0) return undefined;
  return { status: 200, rawHeaders, contentLength, close };
}
