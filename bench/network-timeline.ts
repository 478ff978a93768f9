/**
 * A timeline of one run of our CLI over the link of bench/network-peers.ts, against the floor
 * (one curl GET of the same bytes) on the same link: where the time between the process start
 * and its exit goes. Per connection of the proxy: when it opened, when each request reached
 * nginx, when its answer's first and last byte reached the client; with STRACE=1 also the
 * CLI's sync calls (fsync, fdatasync, syncfs), its renames and its exit, from `strace -f -tt`
 * (STRACE_T=1 adds each call's duration, `-T`; STRACE_CALLS=a,b,c traces other calls).
 *
 *   RTT_MS=50 RATE=100mbit WORKLOAD=fresh-64k STRACE=1 npx tsx bench/network-timeline.ts
 *
 * (OURS_ARGS='--parallel 8' passes flags to our CLI, OURS_NODE_ARGS='--cpu-prof' to node;
 * NODE_CA=keep as in network-peers.ts.) Times are ms after the spawn of each run.
 *
 * CLIS=base=/tmp/a/updater-cli.cjs,new=/tmp/b/updater-cli.cjs runs those launchers instead of a
 * bundle of this tree, ROUNDS=n times each, interleaved, and ends with the median of each one's
 * span from the manifest answer's last byte to the first pack request reaching nginx (conn 1's
 * second request, docs/UPDATER.md §11.2); FLOOR=0 leaves the floor out.
 */
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNginx } from '#test/nginx.js';
import { parseBitsPerSecond, type LinkShape } from './delay-link.js';
import { startDelayProxy, type LinkEvent } from './delay-proxy.js';
import { bundles } from './peer-bundles.js';
import { buildFixture } from './peers-fixture.js';
import { envInt, runMeasured, writeRandomFile, type ChildRun } from './updater-kit.js';

const SIZES: Record<string, { count: number; size: number }> = {
  'fresh-4k': { count: 10_000, size: 4096 },
  'fresh-64k': { count: 1000, size: 64 * 1024 },
};
const workload = process.env.WORKLOAD ?? 'fresh-64k';
const shapeOf = SIZES[workload];
if (shapeOf === undefined) throw new Error(`unknown WORKLOAD ${workload}`);
const shape = shapeOf;
const link: LinkShape = {
  rttMs: envInt('RTT_MS', 50),
  bitsPerSecond: parseBitsPerSecond(process.env.RATE ?? '100mbit'),
};
const STRACE = process.env.STRACE === '1';
const oursArgs = (process.env.OURS_ARGS ?? '').split(' ').filter((a) => a !== '');
// As bench/network-peers.ts: node reads NODE_EXTRA_CA_CERTS at every start (NODE_CA=keep keeps it).
if (process.env.NODE_CA !== 'keep') delete process.env.NODE_EXTRA_CA_CERTS;

/** One answer on one connection: the request's arrival at nginx, its answer's bytes. */
interface Exchange {
  conn: number;
  request: number;
  first: number | undefined;
  last: number | undefined;
  bytes: number;
}

/** Folds the proxy's deliveries into exchanges: down bytes belong to the request before. */
function exchanges(events: readonly LinkEvent[], t0: number): Exchange[] {
  const open = new Map<number, Exchange>();
  const out: Exchange[] = [];
  for (const e of events) {
    const at = e.at - t0;
    if (e.kind === 'up') {
      const x: Exchange = {
        conn: e.conn,
        request: at,
        first: undefined,
        last: undefined,
        bytes: 0,
      };
      open.set(e.conn, x);
      out.push(x);
    } else if (e.kind === 'down') {
      const x = open.get(e.conn);
      if (x === undefined) continue;
      x.first ??= at;
      x.last = at;
      x.bytes += e.bytes;
    }
  }
  return out;
}

const ms = (n: number | undefined): string => (n === undefined ? '-' : n.toFixed(0).padStart(6));

/**
 * The link's use between the first and the last byte down of answers over `minBytes`: the time
 * no byte arrived for longer than `gapMs` (at 100 Mbit/s a 16 KiB slice takes 1.3 ms).
 */
function linkIdle(events: readonly LinkEvent[], t0: number, gapMs = 5): string {
  const down = events.filter((e) => e.kind === 'down');
  const bulk = exchanges(events, t0).filter((x) => x.bytes > 1024 * 1024);
  const from = Math.min(...bulk.map((x) => x.first ?? Number.POSITIVE_INFINITY));
  const to = Math.max(...bulk.map((x) => x.last ?? 0));
  let idle = 0;
  let previous: number | undefined;
  for (const e of down) {
    const at = e.at - t0;
    if (at < from || at > to) continue;
    if (previous !== undefined && at - previous > gapMs) idle += at - previous;
    previous = at;
  }
  const busy = to - from;
  return `bulk bytes from ${ms(from)} to ${ms(to)} (${busy.toFixed(0)} ms), idle ${idle.toFixed(0)} ms`;
}

function printExchanges(label: string, events: readonly LinkEvent[], t0: number, run: ChildRun) {
  console.log(
    `\n${label}: exit at ${ms(run.wallMs)} ms (${(run.wallMs / link.rttMs).toFixed(1)} RTT)`,
  );
  for (const e of events.filter((x) => x.kind === 'open')) {
    console.log(`  conn ${e.conn} opened at ${ms(e.at - t0)}`);
  }
  console.log(`  ${linkIdle(events, t0)}`);
  for (const x of exchanges(events, t0)) {
    const kib = (x.bytes / 1024).toFixed(0).padStart(7);
    console.log(
      `  conn ${x.conn}: request at ${ms(x.request)}, answer ${ms(x.first)} .. ${ms(x.last)}, ${kib} KiB`,
    );
  }
}

/** strace -tt lines (time of day, UTC) as ms after `t0Epoch`. */
async function printStrace(file: string, t0Epoch: number): Promise<void> {
  const day = Math.floor(t0Epoch / 86_400_000) * 86_400_000;
  const lines = (await readFile(file, 'utf8')).split('\n');
  const counts = new Map<string, { n: number; first: number; last: number }>();
  for (const line of lines) {
    const m = /^\d+\s+(\d+):(\d+):(\d+\.\d+) (\w+)\(/.exec(line);
    if (m === null) continue;
    const at = day + ((Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000 - t0Epoch;
    const name = m[4] ?? '?';
    const c = counts.get(name);
    if (c === undefined) counts.set(name, { n: 1, first: at, last: at });
    else {
      c.n++;
      c.last = at;
    }
    if (name === 'syncfs' || name === 'exit_group' || /"current/.test(line)) {
      console.log(`  ${ms(at)} ${line.slice(m[0].length - name.length - 1, 160)}`);
    }
  }
  for (const [name, c] of counts) {
    console.log(`  ${name}: ${c.n} calls, first at ${ms(c.first)}, last at ${ms(c.last)}`);
  }
}

const work = await mkdtemp(join(tmpdir(), 'bench-timeline-'));
const root = join(work, 'www');
const nginx = await startNginx(root, { gzipJson: true });
const events: LinkEvent[] = [];
const proxy = await startDelayProxy({
  target: { host: '127.0.0.1', port: Number(new URL(nginx.baseUrl).port) },
  ...link,
  trace: (e) => events.push(e),
});
try {
  const base = `http://127.0.0.1:${proxy.port}`;
  const fx = await buildFixture(root, base, shape.count, shape.size, false, 0);
  await mkdir(join(root, 'floor'), { recursive: true });
  await writeRandomFile(join(root, 'floor', 'all.bin'), shape.count * shape.size);
  const clis = namedClis(process.env.CLIS) ?? [['ours', (await bundles(work)).ours] as const];
  const rounds = process.env.CLIS === undefined ? 1 : envInt('ROUNDS', 1);

  events.length = 0;
  const t0 = performance.now();
  if (process.env.FLOOR !== '0') {
    const floor = await runMeasured('sh', [
      '-c',
      `curl -sS '${base}/floor/all.bin' | tee '${work}/floor.out' | openssl dgst -sha256 >/dev/null`,
    ]);
    printExchanges('floor', events, t0, floor);
  }
  const spans = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    for (const [label, launcher] of clis) {
      await rm(join(work, 'ours'), { recursive: true, force: true });
      const span = await runOurs(label, launcher, `${base}/v1`, fx.pubkeyHex);
      spans.set(label, [...(spans.get(label) ?? []), span]);
    }
  }
  if (process.env.CLIS !== undefined) {
    for (const [label, values] of spans) {
      const sorted = [...values].sort((a, b) => a - b);
      const median = sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
      console.log(
        `${label}: span median ${median.toFixed(1)} ms (runs ${values.map((v) => v.toFixed(1)).join(', ')})`,
      );
    }
  }
} finally {
  await proxy.close();
  await nginx.stop();
  await rm(work, { recursive: true, force: true });
}

/** CLIS=label=path,…, or undefined. */
function namedClis(text: string | undefined): (readonly [string, string])[] | undefined {
  if (text === undefined) return undefined;
  return text.split(',').map((pair) => {
    const at = pair.indexOf('=');
    return [pair.slice(0, at), pair.slice(at + 1)] as const;
  });
}

/** The manifest answer's last byte to conn 1's second request (the first pack request). */
function spanOf(events: readonly LinkEvent[], t0: number): number {
  const first = exchanges(events, t0).filter((x) => x.conn === exchanges(events, t0)[0]?.conn);
  return (first[1]?.request ?? Number.NaN) - (first[0]?.last ?? Number.NaN);
}

/** One run of `launcher`, its timeline printed; its span (spanOf) returned. */
async function runOurs(label: string, launcher: string, base: string, pubkey: string) {
  events.length = 0;
  const straceOut = join(work, 'strace.txt');
  const nodeArgs = (process.env.OURS_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  const cli = [
    process.execPath,
    ...nodeArgs,
    ...[launcher, 'update', '--base-url', base, '--pubkey', pubkey],
    ...['--dir', join(work, 'ours'), '--json', '--max-artifact-bytes', String(shape.size)],
    ...oursArgs,
  ];
  const traced = STRACE
    ? [
        'strace',
        '-f',
        '-tt',
        ...(process.env.STRACE_T === '1' ? ['-T'] : []),
        '-qq',
        '--seccomp-bpf',
        '-o',
        straceOut,
        '-e',
      ]
    : [];
  const calls = `trace=${process.env.STRACE_CALLS ?? 'fsync,fdatasync,syncfs,rename,renameat,renameat2,exit_group'}`;
  const argv = STRACE ? [...traced, calls, ...cli] : cli;
  const t0Epoch = performance.timeOrigin + performance.now();
  const t0 = performance.now();
  const ours = await runMeasured(argv[0] ?? '', argv.slice(1), {
    env: { UPDATER_MACHINE_KEY: 'bench' },
  });
  if (ours.code !== 0) throw new Error(`ours failed: ${ours.stdout} ${ours.stderr.slice(-2000)}`);
  printExchanges(label, events, t0, ours);
  const span = spanOf(events, t0);
  console.log(`  peak RSS ${((ours.peakRssBytes ?? 0) / 1024 / 1024).toFixed(1)} MiB`);
  console.log(`  manifest's last byte to the first pack request at nginx: ${span.toFixed(1)} ms`);
  if (STRACE) await printStrace(straceOut, t0Epoch);
  // KEEP_STRACE=path keeps the raw trace; its times are of day, t0 is printed to match.
  if (STRACE && process.env.KEEP_STRACE !== undefined) {
    await copyFile(straceOut, process.env.KEEP_STRACE);
    console.log(`  t0 ${new Date(t0Epoch).toISOString()}`);
  }
  return span;
}
