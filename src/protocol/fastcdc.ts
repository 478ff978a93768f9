/**
 * Content-defined chunking, FastCDC (Xia et al., USENIX ATC 2016) with a 32-bit Gear hash,
 * cut-point skipping below the minimum size and normalized chunking level 2. Publisher and
 * client must cut identically, so every detail below is part of the wire format
 * (docs/PROTOCOL.md §2.6):
 *
 * - `GEAR[b]` = the first 4 bytes (big-endian) of SHA-256("verified-updater fastcdc gear v1"
 *   followed by the byte b).
 * - A chunk starting at offset s: bytes s .. s+min-1 are skipped (not hashed); from there,
 *   for each byte, `h = (h << 1) + GEAR[byte]` (32-bit wrap, h = 0 at the chunk start). While
 *   the chunk, that byte included, is at most `avg` long the cut test is `(h & MASK_S) == 0`,
 *   after that `(h & MASK_L) == 0`; a hit cuts after that byte. A chunk reaching `max` bytes
 *   is cut there. The input's last bytes form the last chunk, whatever their length.
 * - With `avg = 2^k`, MASK_S has the k+2 highest bits set and MASK_L the k-2 highest: the
 *   high bits of a left-shifting Gear hash depend on the most bytes (bit j on the last j+1),
 *   so the cut depends on a window of 32 - (k+2) + 1 to 32 bytes.
 *
 * The chunker is streaming: `push` takes any split of the input and reports the same cuts as
 * one call over the whole, so memory stays bounded by the caller's buffer.
 */
import { createHash } from 'node:crypto';

export interface ChunkerParams {
  /** No chunk (but the last) is shorter. */
  readonly minSize: number;
  /** Target mean; a power of two. */
  readonly avgSize: number;
  /** No chunk is longer. */
  readonly maxSize: number;
}

/** Bounds on parameters a parser accepts (docs/PROTOCOL.md §2.6). */
export const CHUNK_PARAM_LIMITS = {
  minAvgSize: 1024,
  maxAvgSize: 4 * 1024 * 1024,
  maxMaxSize: 16 * 1024 * 1024,
} as const;

/** Why a parameter set is unusable, or undefined when it is fine. */
export function chunkerParamsProblem(p: ChunkerParams): string | undefined {
  const { minSize, avgSize, maxSize } = p;
  if (![minSize, avgSize, maxSize].every((n) => Number.isSafeInteger(n) && n > 0)) {
    return 'chunk sizes are not positive integers';
  }
  if (avgSize < CHUNK_PARAM_LIMITS.minAvgSize || avgSize > CHUNK_PARAM_LIMITS.maxAvgSize) {
    return 'average chunk size is out of range';
  }
  if ((avgSize & (avgSize - 1)) !== 0) return 'average chunk size is not a power of two';
  if (!(minSize < avgSize && avgSize < maxSize)) return 'chunk sizes are not min < avg < max';
  if (maxSize > CHUNK_PARAM_LIMITS.maxMaxSize) return 'maximum chunk size is too large';
  return undefined;
}

function buildGear(): Int32Array {
  const gear = new Int32Array(256);
  const prefix = Buffer.from('verified-updater fastcdc gear v1', 'utf8');
  for (let b = 0; b < 256; b++) {
    const digest = createHash('sha256').update(prefix).update(Uint8Array.of(b)).digest();
    gear[b] = digest.readInt32BE(0);
  }
  return gear;
}

const GEAR = buildGear();

/** The `bits` highest bits of a 32-bit word, as a signed int (what `h & mask` compares). */
function highMask(bits: number): number {
  return bits >= 32 ? -1 : (((1 << bits) - 1) << (32 - bits)) | 0;
}

/**
 * A streaming FastCDC cutter. `push(bytes, cuts)` appends the lengths of the chunks completed
 * within `bytes`; `finish()` returns the length of the last (partial) chunk, 0 if none.
 */
export class FastCdc {
  private readonly min: number;
  private readonly normal: number;
  private readonly max: number;
  private readonly maskS: number;
  private readonly maskL: number;
  /** Bytes of the current chunk seen so far. */
  private len = 0;
  private hash = 0;

  constructor(params: ChunkerParams) {
    const problem = chunkerParamsProblem(params);
    if (problem !== undefined) throw new RangeError(problem);
    const bits = Math.log2(params.avgSize);
    this.min = params.minSize;
    this.normal = params.avgSize;
    this.max = params.maxSize;
    this.maskS = highMask(bits + 2);
    this.maskL = highMask(bits - 2);
  }

  push(bytes: Uint8Array, cuts: number[]): void {
    const n = bytes.length;
    const gear = GEAR;
    const { min, normal, max, maskS, maskL } = this;
    let i = 0;
    let len = this.len;
    let h = this.hash;
    while (i < n) {
      if (len < min) {
        // Cut-point skipping: bytes below the minimum are neither hashed nor tested.
        const skip = Math.min(min - len, n - i);
        i += skip;
        len += skip;
        continue;
      }
      const from = i;
      let cut = false;
      if (len < normal) {
        // Phase S: the harder mask until the chunk reaches the normal (average) size.
        const stop = i + Math.min(normal - len, n - i);
        while (i < stop) {
          h = ((h << 1) + (gear[bytes[i] as number] as number)) | 0;
          i++;
          if ((h & maskS) === 0) {
            cut = true;
            break;
          }
        }
        len += i - from;
      } else {
        // Phase L: the easier mask until the maximum, where the chunk is cut regardless.
        const stop = i + Math.min(max - len, n - i);
        while (i < stop) {
          h = ((h << 1) + (gear[bytes[i] as number] as number)) | 0;
          i++;
          if ((h & maskL) === 0) {
            cut = true;
            break;
          }
        }
        len += i - from;
        if (len === max) cut = true;
      }
      if (cut) {
        cuts.push(len);
        len = 0;
        h = 0;
      }
    }
    this.len = len;
    this.hash = h;
  }

  finish(): number {
    const last = this.len;
    this.len = 0;
    this.hash = 0;
    return last;
  }
}
