/**
 * The gzip coding of answers kept as `head + middle + tail` (docs/PROTOCOL.md §2.7.6, Content
 * coding). The head (key set links, release, format 1 envelope: nearly all the bytes) is
 * deflated once per frame and ended with a sync flush, which leaves the deflate stream
 * byte-aligned with no final block; an answer then deflates only its middle and tail (the
 * freshness envelope, about 1 KiB) and appends them, and the CRC-32 continues from the head's.
 * A member built so is one valid gzip stream (RFC 1952; the way pigz joins its blocks), so a
 * re-signed statement or a nonce answer costs microseconds instead of deflating megabytes.
 */
import { constants, crc32, deflateRawSync } from 'node:zlib';

/** RFC 1952 §2.3: magic, deflate, no flags, no mtime, no extra flags, OS unknown. */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);

export class GzipFrame {
  readonly #head: Buffer;
  readonly #headCrc: number;
  readonly #headLength: number;

  /** `level`: the zlib level (1 to 9) chosen by bench/manifest-gzip.ts. */
  constructor(
    head: Uint8Array,
    private readonly level: number,
  ) {
    this.#head = deflateRawSync(head, { level, finishFlush: constants.Z_SYNC_FLUSH });
    this.#headCrc = crc32(head);
    this.#headLength = head.length;
  }

  /** One gzip member whose inflated bytes are exactly `head + rest`. */
  code(rest: Uint8Array): Buffer {
    // Node 20's crc32 of an empty buffer that zlib has processed is 0, not the start value.
    const crc = rest.length === 0 ? this.#headCrc : crc32(rest, this.#headCrc);
    const deflated = deflateRawSync(rest, { level: this.level });
    const trailer = Buffer.allocUnsafe(8);
    trailer.writeUInt32LE(crc, 0);
    // ISIZE is the length modulo 2^32 (RFC 1952 §2.3.1).
    trailer.writeUInt32LE((this.#headLength + rest.length) >>> 0, 4);
    return Buffer.concat([GZIP_HEADER, this.#head, deflated, trailer]);
  }
}
