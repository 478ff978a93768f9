/**
 * A streaming reader of a multipart/byteranges body (RFC 9110 §14.6, RFC 2046 §5.1.1): it
 * hands on each part's bytes with their offset in the resource, as they arrive, and keeps
 * only a delimiter or a part's headers in memory (at most MAX_PART_HEADER_BYTES). Anything
 * that is not a well-formed answer (a missing delimiter, a part without a Content-Range, a
 * total other than the resource size, bytes after the closing delimiter) is refused.
 */
import { UpdateError } from '../errors.js';

export const MAX_PART_HEADER_BYTES = 1024;

const CONTENT_RANGE = /^content-range:[ \t]*bytes[ \t]+(\d+)-(\d+)\/(\d+|\*)[ \t]*$/im;

/** The boundary of a `multipart/byteranges; boundary=...` Content-Type, or undefined. */
export function byterangesBoundary(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const m = /^multipart\/byteranges\s*;(.*)$/i.exec(contentType.trim());
  if (m === null) return undefined;
  const b = /(?:^|;)\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(m[1] ?? '');
  return b?.[1] ?? b?.[2];
}

type State = 'preamble' | 'after-delimiter' | 'headers' | 'body' | 'done';

export class ByterangesReader {
  private state: State = 'preamble';
  private carry = Buffer.alloc(0);
  private remaining = 0;
  private at = 0;
  private readonly delimiter: Buffer;

  constructor(
    boundary: string,
    private readonly resourceSize: number,
    /** Receives each run of part bytes with the offset of its first byte. */
    private readonly onBytes: (offset: number, bytes: Uint8Array) => Promise<void>,
  ) {
    this.delimiter = Buffer.from(`--${boundary}`, 'latin1');
  }

  get done(): boolean {
    return this.state === 'done';
  }

  async push(input: Uint8Array): Promise<void> {
    let data = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
    while (data.length > 0) {
      if (this.state === 'body') {
        const take = Math.min(this.remaining, data.length);
        await this.onBytes(this.at, data.subarray(0, take));
        this.at += take;
        this.remaining -= take;
        data = data.subarray(take);
        if (this.remaining === 0) this.state = 'preamble';
        continue;
      }
      if (this.state === 'done') {
        // Only line endings may follow the closing delimiter (RFC 2046 epilogue, ignored).
        if (data.some((b) => b !== 0x0d && b !== 0x0a)) this.fail('bytes after the last part');
        return;
      }
      this.carry = Buffer.concat([this.carry, data]);
      data = Buffer.alloc(0);
      data = this.scan();
    }
  }

  /** Consumes what `carry` holds in a non-body state; answers bytes left for the body. */
  private scan(): Buffer {
    for (;;) {
      if (this.state === 'preamble') {
        // Between parts: optional CRLF, then the delimiter.
        const start = this.carry.subarray(0, 2).equals(Buffer.from('\r\n')) ? 2 : 0;
        const need = start + this.delimiter.length;
        if (this.carry.length < need) return this.keep(need);
        if (!this.carry.subarray(start, need).equals(this.delimiter)) this.fail('no delimiter');
        this.carry = this.carry.subarray(need);
        this.state = 'after-delimiter';
      }
      if (this.state === 'after-delimiter') {
        if (this.carry.length < 2) return this.keep(2);
        const two = this.carry.subarray(0, 2).toString('latin1');
        this.carry = this.carry.subarray(2);
        if (two === '--') {
          this.state = 'done';
          const rest = this.carry;
          this.carry = Buffer.alloc(0);
          if (rest.some((b) => b !== 0x0d && b !== 0x0a)) this.fail('bytes after the last part');
          return Buffer.alloc(0);
        }
        if (two !== '\r\n') this.fail('a malformed delimiter');
        this.state = 'headers';
      }
      if (this.state === 'headers') {
        const end = this.carry.indexOf('\r\n\r\n');
        if (end < 0) return this.keep(MAX_PART_HEADER_BYTES, true);
        const headers = this.carry.subarray(0, end).toString('latin1');
        this.carry = this.carry.subarray(end + 4);
        const m = CONTENT_RANGE.exec(headers);
        if (m === null) this.fail('a part without a Content-Range');
        const [, first = '', last = '', total = ''] = m;
        if (total !== '*' && Number(total) !== this.resourceSize)
          this.fail('a part of another size');
        this.at = Number(first);
        this.remaining = Number(last) - this.at + 1;
        if (this.remaining < 1 || Number(last) >= this.resourceSize)
          this.fail('an impossible part');
        this.state = 'body';
        const rest = this.carry;
        this.carry = Buffer.alloc(0);
        return rest;
      }
      return Buffer.alloc(0);
    }
  }

  /** Waits for more bytes; refuses a header block that grows past its bound. */
  private keep(need: number, bounded = false): Buffer {
    if (bounded && this.carry.length > need) this.fail('part headers too long');
    if (!bounded && this.carry.length > need + MAX_PART_HEADER_BYTES) this.fail('no delimiter');
    return Buffer.alloc(0);
  }

  private fail(why: string): never {
    throw new UpdateError('SIZE_MISMATCH', `multipart answer refused: ${why}`);
  }
}
