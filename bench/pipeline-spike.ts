/**
 * Spike: the CPU of fetching COUNT small files from loopback nginx with
 * (a) today's createHttpFetcher, 4 GETs at a time, each body consumed, against (b) a raw
 * HTTP/1.1 pipelined client: 4 `net` sockets, up to D requests outstanding on each, requests
 * issued in the same tick written in one socket write, a minimal strict response parser
 * (status line, headers up to 16 KiB, Content-Length body). Rounds interleave; medians and
 * ratios (b / a) come from one run.
 *
 *   COUNT=10000 SIZE=4096 ROUNDS=5 DEPTHS=4,8 npx tsx bench/pipeline-spike.ts
 */
import { randomFillSync } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHttpFetcher } from '#node/http/http-fetcher.js';
import { startNginx } from '#test/nginx.js';
import { envInt } from './updater-kit.js';

const COUNT = envInt('COUNT', 10_000);
const SIZE = envInt('SIZE', 4096);
const ROUNDS = envInt('ROUNDS', 5);
const DEPTHS = (process.env.DEPTHS ?? '4,8').split(',').map(Number);
const CONNECTIONS = 4;
const HEAD_CAP = 16 * 1024;

interface Body {
  next(): Promise<IteratorResult<Uint8Array>>;
}

interface Pending {
  readonly request: string;
  resolve(r: { status: number; body: Body }): void;
  reject(e: unknown): void;
}

const CRLFCRLF = Buffer.from('\r\n\r\n');

/** One body being received: chunks handed to one waiting reader or held. */
class RawBody implements Body {
  held: Buffer[] = [];
  ended = false;
  waiter: ((r: IteratorResult<Uint8Array>) => void) | undefined;
  push(chunk: Buffer): void {
    const w = this.waiter;
    if (w !== undefined) {
      this.waiter = undefined;
      w({ value: chunk, done: false });
    } else this.held.push(chunk);
  }
  end(): void {
    this.ended = true;
    const w = this.waiter;
    this.waiter = undefined;
    w?.({ value: undefined, done: true });
  }
  next(): Promise<IteratorResult<Uint8Array>> {
    const c = this.held.shift();
    if (c !== undefined) return Promise.resolve({ value: c, done: false });
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiter = resolve));
  }
}

/** One pipelined connection: a FIFO of requests sent, a parser over what comes back. */
class Conn {
  readonly socket: Socket;
  readonly queue: Pending[] = [];
  out = '';
  head: Buffer | undefined;
  body: RawBody | undefined;
  left = 0;
  /** The server said Connection: close, or closed: no new request goes here. */
  dead = false;
  retired = false;
  constructor(
    port: number,
    private readonly orphans: (pending: Pending[]) => void,
  ) {
    this.socket = connect({ host: '127.0.0.1', port, noDelay: true });
    this.socket.on('data', (d: Buffer) => this.onData(d));
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => this.retire());
  }
  retire(): void {
    if (this.body !== undefined) throw new Error('closed mid-body');
    this.dead = true;
    this.socket.destroy();
    if (this.retired) return;
    this.retired = true;
    this.orphans(this.queue.splice(0));
  }
  send(p: Pending): void {
    if (this.out === '') process.nextTick(() => this.flush());
    this.out += p.request;
    this.queue.push(p);
  }
  flush(): void {
    const out = this.out;
    this.out = '';
    this.socket.write(out, 'latin1');
  }
  onData(d: Buffer): void {
    let at = 0;
    while (at < d.length) {
      if (this.body !== undefined) {
        const n = Math.min(this.left, d.length - at);
        this.body.push(d.subarray(at, at + n));
        at += n;
        this.left -= n;
        if (this.left === 0) {
          this.body.end();
          this.body = undefined;
          if (this.dead) {
            this.retire();
            return;
          }
        }
        continue;
      }
      const buf =
        this.head === undefined ? d.subarray(at) : Buffer.concat([this.head, d.subarray(at)]);
      const from = this.head === undefined ? 0 : Math.max(0, this.head.length - 3);
      const end = buf.indexOf(CRLFCRLF, from);
      if (end < 0) {
        if (buf.length > HEAD_CAP) throw new Error('head too long');
        this.head = Buffer.from(buf);
        return;
      }
      const consumed = end + 4 - (this.head?.length ?? 0);
      this.head = undefined;
      at += consumed;
      const text = buf.toString('latin1', 0, end);
      const lines = text.split('\r\n');
      const status = Number(lines[0]!.slice(9, 12));
      let length = -1;
      let close = false;
      for (let i = 1; i < lines.length; i++) {
        const line = lines[i]!;
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).toLowerCase();
        if (name === 'content-length') length = Number(line.slice(colon + 1).trim());
        else if (name === 'transfer-encoding') throw new Error('fallback');
        else if (
          name === 'connection' &&
          line
            .slice(colon + 1)
            .trim()
            .toLowerCase() === 'close'
        )
          close = true;
      }
      if (length < 0) throw new Error('fallback');
      const p = this.queue.shift()!;
      const body = new RawBody();
      p.resolve({ status, body });
      if (close) this.dead = true;
      if (length === 0) body.end();
      else {
        this.body = body;
        this.left = length;
      }
    }
    if (this.dead && this.body === undefined) this.retire();
  }
}

class Pipeliner {
  readonly conns: Conn[];
  readonly waiting: (() => void)[] = [];
  constructor(
    private readonly port: number,
    private readonly depth: number,
    private readonly host: string,
  ) {
    this.conns = Array.from({ length: CONNECTIONS }, () => this.open());
  }
  open(): Conn {
    const conn: Conn = new Conn(this.port, (left) => {
      const i = this.conns.indexOf(conn);
      if (i >= 0) this.conns[i] = this.open();
      for (const p of left) this.route(p);
      for (const wake of this.waiting.splice(0)) wake();
    });
    return conn;
  }
  route(p: Pending): void {
    let best: Conn | undefined;
    for (const c of this.conns) {
      if (!c.dead && (best === undefined || c.queue.length < best.queue.length)) best = c;
    }
    best!.send(p);
  }
  get(path: string): Promise<{ status: number; body: Body }> {
    let best: Conn | undefined;
    for (const c of this.conns) {
      if (c.dead) continue;
      if (c.queue.length < this.depth && (best === undefined || c.queue.length < best.queue.length))
        best = c;
    }
    if (best === undefined) {
      return new Promise<void>((r) => this.waiting.push(r)).then(() => this.get(path));
    }
    const conn = best;
    return new Promise((resolve, reject) => {
      conn.send({
        request: `GET ${path} HTTP/1.1\r\nHost: ${this.host}\r\naccept-encoding: identity\r\nuser-agent: spike/1\r\nConnection: keep-alive\r\n\r\n`,
        resolve: (r) => {
          resolve(r);
          this.waiting.shift()?.();
        },
        reject,
      });
    });
  }
  close(): void {
    for (const c of this.conns) c.socket.destroy();
  }
}

async function drain(body: AsyncIterable<Uint8Array> | Body): Promise<number> {
  let n = 0;
  if (Symbol.asyncIterator in body) {
    for await (const c of body) n += c.length;
    return n;
  }
  for (;;) {
    const r = await body.next();
    if (r.done === true) return n;
    n += r.value.length;
  }
}

interface Figure {
  wallMs: number;
  cpuMs: number;
}

async function measure(run: () => Promise<void>): Promise<Figure> {
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  await run();
  const c = process.cpuUsage(c0);
  return { wallMs: Number(process.hrtime.bigint() - t0) / 1e6, cpuMs: (c.user + c.system) / 1000 };
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'pipe-spike-'));
  const files = join(root, 'files');
  await mkdir(files);
  const names = Array.from({ length: COUNT }, (_, i) => `f${String(i).padStart(5, '0')}.bin`);
  for (const n of names) await writeFile(join(files, n), randomFillSync(Buffer.alloc(SIZE)));
  const nginx = await startNginx(root);
  const port = Number(new URL(nginx.baseUrl).port);
  const host = `127.0.0.1:${port}`;
  try {
    const a = async (): Promise<void> => {
      const fetcher = createHttpFetcher({ connectTimeoutMs: 10_000 });
      const signal = new AbortController().signal;
      const headers = { 'accept-encoding': 'identity', 'user-agent': 'spike/1' };
      let next = 0;
      let bytes = 0;
      const worker = async (): Promise<void> => {
        while (next < names.length) {
          const url = `${nginx.baseUrl}/files/${names[next++]!}`;
          const r = await fetcher.get(url, { headers, signal });
          if (r.status !== 200) throw new Error(`status ${r.status}`);
          const n = await drain(r.body);
          bytes += n;
        }
      };
      await Promise.all(Array.from({ length: CONNECTIONS }, worker));
      if (bytes !== COUNT * SIZE) throw new Error(`bytes ${bytes}`);
    };
    const b = (depth: number) => async (): Promise<void> => {
      const p = new Pipeliner(port, depth, host);
      let next = 0;
      let bytes = 0;
      const worker = async (): Promise<void> => {
        while (next < names.length) {
          const r = await p.get(`/files/${names[next++]!}`);
          if (r.status !== 200) throw new Error(`status ${r.status}`);
          const n = await drain(r.body);
          bytes += n;
        }
      };
      await Promise.all(Array.from({ length: CONNECTIONS * depth }, worker));
      p.close();
      if (bytes !== COUNT * SIZE) throw new Error(`bytes ${bytes}`);
    };
    const contenders: [string, () => Promise<void>][] = [
      ['a node:http', a],
      ...DEPTHS.map((d): [string, () => Promise<void>] => [`b pipelined D=${d}`, b(d)]),
    ];
    await a(); // warm-up (JIT, nginx's open-file paths)
    for (const d of DEPTHS) await b(d)();
    const figures = new Map<string, Figure[]>(contenders.map(([n]) => [n, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < contenders.length; i++) {
        const [name, run] = contenders[(i + round) % contenders.length]!;
        figures.get(name)!.push(await measure(run));
      }
    }
    const median = (xs: number[]): number =>
      [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    const base = figures.get('a node:http')!;
    const baseCpu = median(base.map((f) => f.cpuMs));
    const baseWall = median(base.map((f) => f.wallMs));
    console.log(
      `COUNT=${COUNT} SIZE=${SIZE} ROUNDS=${ROUNDS} (process CPU of the fetch only, medians)`,
    );
    for (const [name, fs] of figures) {
      const cpu = median(fs.map((f) => f.cpuMs));
      const wall = median(fs.map((f) => f.wallMs));
      console.log(
        `${name.padEnd(20)} cpu ${cpu.toFixed(0).padStart(6)} ms (${(cpu / baseCpu).toFixed(2)}x)  wall ${wall.toFixed(0).padStart(6)} ms (${(wall / baseWall).toFixed(2)}x)`,
      );
    }
  } finally {
    await nginx.stop();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
// Sockets a fetcher keeps alive must not hold the process.
process.exit(0);
