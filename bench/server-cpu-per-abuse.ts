/**
 * The server's CPU per kind of abuse of the soak (docs/SERVER.md §Soak), each kind alone:
 * `idle` (300 sockets that send nothing), `trickle` (300 sockets trickling a mint body, a byte
 * a second each), `flood` (mint and key-guess loops, a new connection per request), and `none`
 * (the server with nothing to do). Run:
 *   npx tsx bench/server-cpu-per-abuse.ts [seconds per run, default 20] [OTHER_ROOT]
 * The server runs as the soak runs it (CLI, default limits, --log-level warn, no --dev) from
 * this checkout and, given OTHER_ROOT (another checkout, e.g. `git archive` of an older commit
 * with node_modules linked), from there too; rounds alternate between them (ABUSE_ROUNDS,
 * default 2). The abuse is bench/soak-abuser.ts with one kind. CPU is utime+stime of the
 * server from /proc/PID/stat (Linux only). Reported per kind: the server's CPU in ms per
 * second, per socket-second held (idle, trickle), per reconnect (a socket the abuser opened)
 * and per flood request; each is the whole CPU of the run over that unit. ABUSE_PROF=DIR
 * writes this checkout's server CPU profile there. ABUSE_SERVER_ARGS adds server flags:
 * `--rate-limit 1` puts the abusing address over its quota from the start (every trickle held
 * after the 429 before Fastify), `--rate-limit off` never (every trickle answered 413 by
 * Fastify and closed, so the abuser reconnects at once). Loopback only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

const SECONDS = Number(process.argv[2] ?? 20);
const OTHER = process.argv[3];
const ROUNDS = Number(process.env['ABUSE_ROUNDS'] ?? 2);
const PROF = process.env['ABUSE_PROF'];
const SERVER_ARGS = (process.env['ABUSE_SERVER_ARGS'] ?? '').split(' ').filter((a) => a !== '');
const KINDS = ['none', 'idle', 'trickle', 'flood'] as const;
type Kind = (typeof KINDS)[number];
const SOCKETS = 300;

interface Server {
  readonly name: string;
  readonly child: ChildProcess;
  readonly url: string;
  readonly runs: Record<Kind, Run[]>;
}

interface Run {
  readonly cpuMs: number;
  readonly seconds: number;
  readonly reconnects: number;
  readonly requests: number;
}

async function start(name: string, root: string, profile: boolean): Promise<Server> {
  const child = spawn(
    process.execPath,
    [
      ...(profile && PROF !== undefined ? ['--cpu-prof', '--cpu-prof-dir', resolve(PROF)] : []),
      '--import',
      'tsx',
      'server/src/cli/main.ts',
      '--port',
      '0',
      '--simulate',
      'off',
      '--log-level',
      'warn',
      ...SERVER_ARGS,
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((done) =>
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', done),
  );
  child.stdout?.resume();
  const url = (JSON.parse(line) as { url: string }).url;
  return { name, child, url, runs: { none: [], idle: [], trickle: [], flood: [] } };
}

/** User + system CPU ms of `pid`. */
async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface Counters {
  mints?: number;
  guesses?: number;
  trickle?: { connected: number };
  idle?: { connected: number };
}

/** Runs the abuser with `kind` against `server` for SECONDS; the server's CPU meanwhile. */
async function run(server: Server, kind: Kind): Promise<Run> {
  const pid = server.child.pid ?? 0;
  if (kind === 'none') {
    const before = await cpuMs(pid);
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const seconds = (performance.now() - t0) / 1000;
    return { cpuMs: (await cpuMs(pid)) - before, seconds, reconnects: 0, requests: 0 };
  }
  const abuser = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/soak-abuser.ts', server.url, kind],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const lines = createInterface({ input: abuser.stdout });
  const last = new Promise<string>((done) => {
    lines.on('line', (l) => {
      if (l !== 'abusing') done(l);
    });
  });
  await new Promise<void>((done) => lines.once('line', () => done()));
  const before = await cpuMs(pid);
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  const cpu = (await cpuMs(pid)) - before;
  const seconds = (performance.now() - t0) / 1000;
  abuser.stdin.end();
  const c = JSON.parse(await last) as Counters;
  // Let the server close what the abuser left before the next run.
  await new Promise((r) => setTimeout(r, 1000));
  return {
    cpuMs: cpu,
    seconds,
    reconnects: (c.trickle?.connected ?? 0) + (c.idle?.connected ?? 0),
    requests: (c.mints ?? 0) + (c.guesses ?? 0),
  };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? 0;

function report(s: Server, kind: Kind): string {
  const runs = s.runs[kind];
  const msPerS = median(runs.map((r) => r.cpuMs / r.seconds));
  const parts = [`${msPerS.toFixed(1)} ms/s`];
  if (kind === 'idle' || kind === 'trickle') {
    const perSocketS = median(runs.map((r) => (r.cpuMs * 1000) / (SOCKETS * r.seconds)));
    const perReconnect = median(runs.map((r) => (r.cpuMs * 1000) / Math.max(1, r.reconnects)));
    const reconnectsPerS = median(runs.map((r) => r.reconnects / r.seconds));
    parts.push(
      `${perSocketS.toFixed(1)} us per socket-second`,
      `${perReconnect.toFixed(0)} us per reconnect (${reconnectsPerS.toFixed(1)} reconnects/s)`,
    );
  }
  if (kind === 'flood') {
    const perRequest = median(runs.map((r) => (r.cpuMs * 1000) / Math.max(1, r.requests)));
    const perS = median(runs.map((r) => r.requests / r.seconds));
    parts.push(`${perRequest.toFixed(0)} us per request (${perS.toFixed(0)} requests/s)`);
  }
  return `${s.name.padEnd(14)} ${kind.padEnd(8)} ${parts.join(', ')}`;
}

async function main(): Promise<void> {
  const servers = [await start('this checkout', process.cwd(), true)];
  if (OTHER !== undefined) servers.unshift(await start('other root', resolve(OTHER), false));
  const load0 = loadavg();
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const kind of KINDS) {
        for (const s of servers) s.runs[kind].push(await run(s, kind));
      }
    }
  } finally {
    for (const s of servers) s.child.kill('SIGTERM');
  }
  const load1 = loadavg();
  console.log(
    `load average ${load0.map((l) => l.toFixed(2)).join(' ')} -> ${load1.map((l) => l.toFixed(2)).join(' ')}; ${ROUNDS} rounds of ${SECONDS} s per kind and server`,
  );
  for (const kind of KINDS) for (const s of servers) console.log(report(s, kind));
  if (servers.length === 2) {
    for (const kind of KINDS) {
      const [other, self] = servers.map((s) =>
        median(s.runs[kind].map((r) => r.cpuMs / r.seconds)),
      );
      console.log(
        `${kind}: this checkout / other root, CPU per second: ${((self ?? 0) / (other ?? 1)).toFixed(2)}`,
      );
    }
  }
}

await main();
