/**
 * The server's CPU per flood request from an address over its rate limit (docs/SERVER.md
 * §Rate limits, §Soak): what a mint flood and key guessing cost once they are refused. Run:
 *   npx tsx bench/server-cpu-per-refusal.ts [requests per round, default 4000] [OTHER_ROOT]
 * The server (CLI, --rate-limit 1, --log-level silent, no --dev) runs in its own process from
 * this checkout and, given OTHER_ROOT (another checkout, e.g. `git archive` of an older
 * commit with node_modules linked), from there too; rounds alternate between them (3 each).
 * Each request is what bench/soak-abuser.ts sends: a new connection from 127.0.0.2, 4 loops,
 * half `POST /api/demo-key/mint`, half `GET /api/updates/manifest` with a wrong key; every
 * answer must be 429. CPU is utime+stime of the server from /proc/PID/stat (Linux only).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

const N = Number(process.argv[2] ?? 4_000);
const OTHER = process.argv[3];
const ROUNDS = 3;
const LOOPS = 4;
const ABUSER = '127.0.0.2';
const BAD = { authorization: `Bearer mk_${'A'.repeat(43)}` };

function status(url: string, method: string, headers: Record<string, string>): Promise<number> {
  return new Promise((done) => {
    const req = request(url, { method, agent: false, headers, localAddress: ABUSER }, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode ?? 0));
    });
    req.on('error', () => done(0));
    req.end();
  });
}

async function start(root: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'server/src/cli/main.ts', '--port', '0', '--simulate', 'off'].concat([
      '--log-level',
      'silent',
      '--rate-limit',
      '1',
    ]),
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((done) =>
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', done),
  );
  child.stdout?.resume();
  return { child, url: (JSON.parse(line) as { url: string }).url };
}

/** User and system CPU ms of `pid`. */
async function cpuMs(pid: number): Promise<{ user: number; system: number }> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
}

/** Sends `n` flood requests; throws unless every one was refused 429. */
async function flood(url: string, n: number): Promise<void> {
  let next = 0;
  let other = 0;
  await Promise.all(
    Array.from({ length: LOOPS }, async () => {
      while (next < n) {
        const i = next++;
        const s =
          i % 2 === 0
            ? await status(`${url}/api/demo-key/mint`, 'POST', {})
            : await status(`${url}/api/updates/manifest`, 'GET', BAD);
        if (s !== 429) other += 1;
      }
    }),
  );
  if (other > 0) throw new Error(`${url}: ${other} answers were not 429`);
}

async function main(): Promise<void> {
  const roots: [string, string][] = [['this checkout', process.cwd()]];
  if (OTHER !== undefined) roots.unshift(['other root', resolve(OTHER)]);
  const servers = [];
  for (const [name, root] of roots) {
    const s = await start(root);
    // Use the quotas up (1 a minute): one mint, one failure; then warm the JIT.
    await status(`${s.url}/api/demo-key/mint`, 'POST', {});
    await status(`${s.url}/api/updates/manifest`, 'GET', BAD);
    await flood(s.url, Math.min(N, 2_000));
    servers.push({ name, ...s, us: [] as number[], sys: [] as number[] });
  }
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const s of servers) {
        const pid = s.child.pid ?? 0;
        const before = await cpuMs(pid);
        await flood(s.url, N);
        const after = await cpuMs(pid);
        const total = after.user + after.system - before.user - before.system;
        s.us.push((total * 1000) / N);
        s.sys.push(((after.system - before.system) * 1000) / N);
      }
    }
  } finally {
    for (const s of servers) s.child.kill('SIGTERM');
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? 0;
  for (const s of servers) {
    const rounds = s.us.map((u) => u.toFixed(0)).join(', ');
    console.log(
      `${s.name.padEnd(14)} ${median(s.us).toFixed(0).padStart(5)} us CPU per refused flood request, ${median(s.sys).toFixed(0)} us of it system (rounds: ${rounds}; ${N} each)`,
    );
  }
  if (servers.length === 2) {
    const [a, b] = servers;
    console.log(
      `this checkout / other root: ${(median(b?.us ?? []) / median(a?.us ?? [])).toFixed(2)}`,
    );
  }
}

await main();
