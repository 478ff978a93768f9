/**
 * The model of one direction of an emulated network link, for bench/delay-proxy.ts: a
 * bottleneck that puts bytes on the wire at a fixed rate, then a fixed propagation delay.
 *
 * The rate is a token bucket whose depth is one slice (SLICE_BYTES): a slice leaves once the
 * wire has finished the one before it, so the clock below is the bucket (a deeper bucket would
 * let a burst go through faster than the link, which a real bottleneck never does). Several
 * connections may share one Wire: slices then leave in the order they were read, as from the
 * FIFO queue of a router, so parallel connections split the rate instead of each getting it.
 *
 * Not modelled: loss, reordering, jitter, and TCP's slow start and window growth (a real new
 * connection starts slower than the link; here it gets the full rate at once, which flatters
 * clients that open many short connections).
 */

/** Bytes put on the wire as one unit: small enough to interleave connections fairly. */
export const SLICE_BYTES = 16 * 1024;

/** A link's shape. */
export interface LinkShape {
  /** Round-trip time: each direction adds half of it. */
  readonly rttMs: number;
  /** The rate of each direction; 0 is no cap. */
  readonly bitsPerSecond: number;
}

/**
 * One direction's bottleneck: when the wire is free again, and how many bytes it holds (read
 * from a sender, not yet handed to the receiver). Holding is capped, as a real path holds at
 * most its bandwidth-delay product plus a router's buffer: a sender that finds the wire full
 * pauses (its kernel buffers fill and TCP's flow control slows the real sender) and is woken
 * once the wire has drained to half its cap, so memory stays bounded at any rate.
 */
export class Wire {
  private freeAt = 0;
  private held = 0;
  private readonly waiting = new Set<() => void>();

  /** `shape()` is read at every slice, so a proxy can change its link between runs. */
  constructor(private readonly shape: () => LinkShape) {}

  /**
   * Reserves the wire for `bytes` bytes, starting no earlier than `from` (ms, the clock of
   * performance.now()), and returns when they arrive at the far end: the time the last
   * byte leaves plus the one-way delay. The bytes are held until `release`d.
   */
  transmit(bytes: number, from: number): number {
    const { rttMs, bitsPerSecond } = this.shape();
    const start = Math.max(from, this.freeAt);
    const onWire = bitsPerSecond > 0 ? (bytes * 8 * 1000) / bitsPerSecond : 0;
    this.freeAt = start + onWire;
    this.held += bytes;
    return this.freeAt + rttMs / 2;
  }

  /** The bytes handed to the receiver (or dropped with their connection). */
  release(bytes: number): void {
    this.held -= bytes;
    if (this.held <= this.cap() / 2 && this.waiting.size > 0) {
      const woken = [...this.waiting];
      this.waiting.clear();
      for (const wake of woken) wake();
    }
  }

  full(): boolean {
    return this.held > this.cap();
  }

  /** Calls `wake` once the wire has drained (a paused sender resumes then). */
  whenDrained(wake: () => void): void {
    this.waiting.add(wake);
  }

  forget(wake: () => void): void {
    this.waiting.delete(wake);
  }

  /**
   * What the wire may hold: the bytes in flight over one way plus 50 ms of queue at the
   * rate (a modest router buffer), at least 256 KiB; without a rate cap, 4 MiB.
   */
  private cap(): number {
    const { rttMs, bitsPerSecond } = this.shape();
    if (bitsPerSecond <= 0) return 4 * 1024 * 1024;
    return Math.max(256 * 1024, ((bitsPerSecond / 8) * (rttMs / 2 + 50)) / 1000);
  }
}

/** Parses a bandwidth such as `100mbit`, `2.5gbit`, `800kbit` or plain bits per second. */
export function parseBitsPerSecond(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([kmg]?)(?:bit|bps)?(?:\/s)?$/i.exec(text.trim());
  if (match === null) throw new Error(`not a bandwidth: ${text} (e.g. 100mbit)`);
  const scale = { '': 1, k: 1e3, m: 1e6, g: 1e9 }[(match[2] ?? '').toLowerCase()] ?? 1;
  const bits = Number(match[1]) * scale;
  if (!Number.isFinite(bits)) throw new Error(`not a bandwidth: ${text}`);
  return Math.round(bits);
}
