/**
 * A userspace TCP proxy that makes loopback look like a real link, for machines without
 * kernel netem (tc qdisc ... netem needs root and the sch_netem module, which these do not
 * have): it listens on 127.0.0.1, forwards every connection to `target`, and delays each
 * direction by half the RTT behind a bandwidth cap (bench/delay-link.ts), so one
 * request-response costs one RTT and a large body takes its size over the rate.
 *
 * The cap is shared by all connections of the proxy by default (`share: 'proxy'`), as a real
 * access link caps the sum of everything crossing it: eight parallel downloads then split the
 * rate instead of getting eight times it. `share: 'connection'` gives each connection its own
 * cap (a per-flow shaper). Each direction has its own cap either way (full duplex).
 *
 * A new connection's bytes leave no earlier than one RTT after it was accepted, as TCP's
 * handshake makes a client wait for the SYN-ACK before it sends; TLS handshakes are data and
 * get their round trips from the delay itself.
 *
 *   npx tsx bench/delay-proxy.ts --target 127.0.0.1:8080 [--rtt 50] [--rate 100mbit]
 *                                [--port 0] [--per-connection]
 *
 * prints `listening on 127.0.0.1:PORT` and, on SIGINT or SIGTERM, its counters as JSON.
 */
import { connect, createServer, type Socket } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseBitsPerSecond, SLICE_BYTES, Wire, type LinkShape } from './delay-link.js';

export interface DelayProxyOptions {
  readonly target: { readonly host: string; readonly port: number };
  readonly rttMs: number;
  /** Per direction; 0 or omitted is no cap. */
  readonly bitsPerSecond?: number;
  /** Who shares a cap: every connection of the proxy (default), or each connection alone. */
  readonly share?: 'proxy' | 'connection';
  /** The port to listen on; 0 (default) picks a free one. */
  readonly port?: number;
  /** Told of every connection accepted and every delivery, when it happens (a timeline). */
  readonly trace?: (event: LinkEvent) => void;
}

/**
 * What the proxy did at `at` (performance.now()): connection `conn` accepted, or `bytes` handed
 * on in one direction (up: to the server; down: to the client) as the link let them through.
 */
export interface LinkEvent {
  readonly at: number;
  readonly conn: number;
  readonly kind: 'open' | 'up' | 'down';
  readonly bytes: number;
}

export interface DelayProxyStats {
  /** Connections accepted so far. */
  readonly connections: number;
  /** The most connections open at once. */
  readonly peakOpen: number;
  readonly bytesUp: number;
  readonly bytesDown: number;
  /**
   * Turns of the conversation: client bytes that arrived after the server had spoken on
   * their connection (or first on it). For HTTP/1.1 that is one per request sent alone, one
   * per batch of pipelined requests written at once: the round trips a client waited for,
   * unless it writes again while answers are still arriving (each such write counts one).
   */
  readonly turns: number;
}

export interface DelayProxy {
  readonly port: number;
  stats(): DelayProxyStats;
  /** Changes the link for bytes read from now on (e.g. a fast untimed set-up, then the link). */
  setLink(shape: LinkShape): void;
  close(): Promise<void>;
}

interface Slice {
  readonly at: number;
  /** null: the sender's FIN, forwarded after the bytes before it. */
  readonly bytes: Buffer | null;
}

/** One direction of one connection: bytes read from `from` are written to `to` when due. */
class DelayedPipe {
  private readonly queue: Slice[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** `to`'s write buffer is over its high-water mark: stop reading until it drains. */
  private blocked = false;
  private paused = false;
  private done = false;
  private readonly wake = (): void => this.flowControl();

  constructor(
    private readonly from: Socket,
    private readonly to: Socket,
    private readonly wire: Wire,
    private readonly notBefore: number,
    onData: (bytes: number) => void,
    private readonly onDeliver?: (bytes: number) => void,
  ) {
    from.on('data', (chunk: Buffer) => {
      onData(chunk.length);
      for (let at = 0; at < chunk.length; at += SLICE_BYTES) {
        this.push(chunk.subarray(at, at + SLICE_BYTES));
      }
      this.flowControl();
    });
    from.on('end', () => this.push(null));
    to.on('drain', () => {
      this.blocked = false;
      this.flowControl();
    });
  }

  /** Drops what is queued (the connection is gone) and gives its room back to the wire. */
  dispose(): void {
    this.done = true;
    clearTimeout(this.timer);
    this.wire.forget(this.wake);
    for (const slice of this.queue.splice(0)) this.wire.release(slice.bytes?.length ?? 0);
  }

  private push(bytes: Buffer | null): void {
    if (this.done) return;
    const from = Math.max(performance.now(), this.notBefore);
    this.queue.push({ at: this.wire.transmit(bytes?.length ?? 0, from), bytes });
    this.schedule();
  }

  private schedule(): void {
    const head = this.queue[0];
    if (this.timer !== undefined || this.done || head === undefined) return;
    // Timers fire a little late, so aim at the whole ms before and deliver up to 1 ms early.
    const wait = Math.max(0, Math.floor(head.at - performance.now()));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.deliver();
    }, wait);
  }

  private deliver(): void {
    const now = performance.now();
    let delivered = 0;
    for (let head = this.queue[0]; head !== undefined && head.at <= now + 1; head = this.queue[0]) {
      this.queue.shift();
      if (head.bytes === null) {
        if (!this.to.destroyed) this.to.end();
        continue;
      }
      this.wire.release(head.bytes.length);
      delivered += head.bytes.length;
      if (!this.to.destroyed && !this.to.write(head.bytes)) this.blocked = true;
    }
    if (delivered > 0) this.onDeliver?.(delivered);
    this.flowControl();
    this.schedule();
  }

  /** Reads from `from` only while the wire has room and `to` keeps up. */
  private flowControl(): void {
    if (this.done) return;
    const full = this.wire.full();
    if (full) this.wire.whenDrained(this.wake);
    const stop = this.blocked || full;
    if (stop === this.paused) return;
    this.paused = stop;
    if (stop) this.from.pause();
    else this.from.resume();
  }
}

/** Starts the proxy on 127.0.0.1; resolves once it listens. */
export async function startDelayProxy(options: DelayProxyOptions): Promise<DelayProxy> {
  let shape: LinkShape = { rttMs: options.rttMs, bitsPerSecond: options.bitsPerSecond ?? 0 };
  const current = (): LinkShape => shape;
  const shared = { up: new Wire(current), down: new Wire(current) };
  const perConnection = options.share === 'connection';
  let connections = 0;
  let open = 0;
  let peakOpen = 0;
  let bytesUp = 0;
  let bytesDown = 0;
  let turns = 0;
  const sockets = new Set<Socket>();

  // allowHalfOpen: a FIN is forwarded by the pipe, after the bytes sent before it.
  const trace = options.trace;
  const server = createServer({ allowHalfOpen: true }, (client) => {
    const conn = connections++;
    trace?.({ at: performance.now(), conn, kind: 'open', bytes: 0 });
    const tell = (kind: 'up' | 'down') =>
      trace === undefined
        ? undefined
        : (bytes: number) => trace({ at: performance.now(), conn, kind, bytes });
    peakOpen = Math.max(peakOpen, ++open);
    const notBefore = performance.now() + shape.rttMs;
    const upstream = connect({ ...options.target, allowHalfOpen: true });
    const wires = perConnection ? { up: new Wire(current), down: new Wire(current) } : shared;
    let serverSpoke = true;
    const up = new DelayedPipe(
      client,
      upstream,
      wires.up,
      notBefore,
      (n) => {
        bytesUp += n;
        if (serverSpoke) turns++;
        serverSpoke = false;
      },
      tell('up'),
    );
    const down = new DelayedPipe(
      upstream,
      client,
      wires.down,
      notBefore,
      (n) => {
        bytesDown += n;
        serverSpoke = true;
      },
      tell('down'),
    );
    let closed = 0;
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      // A reset on one side resets the other, as a broken path would.
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
      socket.on('close', () => {
        sockets.delete(socket);
        if (++closed < 2) return;
        up.dispose();
        down.dispose();
        open--;
      });
    }
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolveListen());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');
  return {
    port: address.port,
    stats: () => ({ connections, peakOpen, bytesUp, bytesDown, turns }),
    setLink(next) {
      shape = next;
    },
    close: () =>
      new Promise<void>((resolveClose) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolveClose());
      }),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      target: { type: 'string' },
      rtt: { type: 'string', default: '50' },
      rate: { type: 'string', default: '100mbit' },
      port: { type: 'string', default: '0' },
      'per-connection': { type: 'boolean', default: false },
    },
  });
  const target = /^(.+):(\d+)$/.exec(values.target ?? '');
  if (target === null) throw new Error('--target HOST:PORT is required');
  const proxy = await startDelayProxy({
    target: { host: target[1] ?? '', port: Number(target[2]) },
    rttMs: Number(values.rtt),
    bitsPerSecond: parseBitsPerSecond(values.rate),
    share: values['per-connection'] ? 'connection' : 'proxy',
    port: Number(values.port),
  });
  console.log(`listening on 127.0.0.1:${proxy.port}`);
  const stop = (): void => {
    console.log(JSON.stringify(proxy.stats()));
    void proxy.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
