/**
 * What the default flags of `npm run server` (info logging, one line per request, and the chain
 * simulator) cost the token endpoint, measured finely interleaved so that the load of other
 * processes falls on both servers alike: two servers in their own processes
 * (bench/oauth-server-child.ts, 'quiet' and 'default'), then ROUNDS rounds of BATCH
 * authorization_code requests to each, alternating which goes first and which client kind
 * (public, confidential) is used. Each server reports its own CPU time (process.cpuUsage, in
 * µs) before and after each batch. bench/oauth-token.ts compares whole runs of 4,000 requests,
 * whose CPU figures swing by more than the effect on a shared machine. Then, in this process,
 * the CPU of the request line alone (the one thing logging adds per request, written as
 * server/src/platform/logger.ts writes it, synchronously to /dev/null), for the decomposition:
 * the simulator runs on a timer, about once per time unit, not per request.
 *
 *   npx tsx bench/default-flags-cost.ts        (ROUNDS=40 BATCH=250; AA=1 runs the control:
 *                                               a second quiet server in place of the default)
 */
import { loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { destination } from 'pino';
import { redactUrl } from '#server/dev/request-log.js';
import { createLogger } from '#server/platform/logger.js';
import type { Minted } from './oauth-server-child.js';
import { startServerChild, type ServerChild as Server } from './server-child-ipc.js';
import { envInt, percentiles, printTable } from './updater-kit.js';

const ROUNDS = envInt('ROUNDS', 40);
const BATCH = envInt('BATCH', 250);

type Kind = 'public' | 'confidential';
const CLIENT: Record<Kind, string> = { public: 'desktop-app', confidential: 'qa-web' };

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const autocannon = require('autocannon');
const { url, bodies, headers } = workerData;
let next = 0, ok = 0;
autocannon({
  url, connections: 10, amount: bodies.length,
  requests: [{
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    setupRequest: (req) => ({ ...req, body: bodies[next++] }),
    onResponse: (status) => { if (status === 200) ok++; },
  }],
}).then((r) => parentPort.postMessage({ ok, errors: r.errors }), () => parentPort.postMessage({ ok, errors: -1 }));
`;

async function cpuUs(s: Server): Promise<number> {
  const m = await s.ask({ cpu: true });
  if (!('cpuUs' in m)) throw new Error(`${s.label}: unexpected message`);
  return m.cpuUs;
}

function load(url: string, bodies: string[], headers: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { eval: true, workerData: { url, bodies, headers } });
    worker.once('message', (m: { ok: number; errors: number }) => {
      void worker.terminate();
      if (m.ok === bodies.length && m.errors === 0) resolve();
      else reject(new Error(`${url}: ${m.ok}/${bodies.length} answered 200, ${m.errors} errors`));
    });
    worker.once('error', reject);
  });
}

/** One batch of code grants to `s`; returns the server's CPU µs per request. */
async function batch(s: Server, kind: Kind): Promise<number> {
  const m = await s.ask({ mint: kind, n: BATCH });
  if (!('minted' in m)) throw new Error(`${s.label}: unexpected message`);
  const id = kind === 'public' ? { client_id: CLIENT[kind] } : {};
  const bodies = m.minted.map((c: Minted) =>
    new URLSearchParams({
      grant_type: 'authorization_code',
      ...id,
      code: c.code,
      redirect_uri: c.redirect,
      code_verifier: c.verifier,
    }).toString(),
  );
  const headers: Record<string, string> =
    kind === 'confidential'
      ? { authorization: `Basic ${Buffer.from(`qa-web:${s.secret}`).toString('base64')}` }
      : {};
  const before = await cpuUs(s);
  await load(s.tokenUrl, bodies, headers);
  return ((await cpuUs(s)) - before) / BATCH;
}

/** CPU µs per request line, as logEachRequest writes it (pino child without redaction). */
function lineCostUs(lines: number): number {
  const line = createLogger('info', destination({ dest: '/dev/null' })).child(
    {},
    { redact: { paths: [] } },
  );
  const before = process.cpuUsage();
  for (let i = 0; i < lines; i++) {
    line.info(
      { method: 'POST', url: redactUrl('/api/oauth/token'), status: 200, ms: 1.2 },
      'request',
    );
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / lines;
}

const quiet = await startServerChild('quiet', 'quiet');
// AA=1: the control, two identical quiet servers: what the method reads when there is no effect.
const AA = process.env.AA === '1';
const dflt = await startServerChild('default', AA ? 'quiet' : 'default');
const per = { quiet: [] as number[], default: [] as number[] };
const paired: number[] = [];
try {
  for (const s of [quiet, dflt])
    for (const kind of ['public', 'confidential'] as const) await batch(s, kind); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    const kind: Kind = round % 2 === 0 ? 'public' : 'confidential';
    const order = Math.floor(round / 2) % 2 === 0 ? [quiet, dflt] : [dflt, quiet];
    const got = new Map<Server, number>();
    for (const s of order) got.set(s, await batch(s, kind));
    const q = got.get(quiet) ?? NaN;
    const d = got.get(dflt) ?? NaN;
    per.quiet.push(q);
    per.default.push(d);
    paired.push(d / q);
  }
} finally {
  quiet.child.kill();
  dflt.child.kill();
}

lineCostUs(20_000); // warm-up
const line = percentiles([lineCostUs(100_000), lineCostUs(100_000), lineCostUs(100_000)]);

const sum = (a: number[]): number => a.reduce((x, y) => x + y, 0);
const q = percentiles(per.quiet);
const d = percentiles(per.default);
const p = percentiles(paired);
const total = sum(per.default) / sum(per.quiet) - 1;
const what = AA ? 'control (quiet against quiet)' : "default flags' cost";
printTable(`${what}, ${ROUNDS} interleaved rounds of ${BATCH} code grants`, [
  ['server CPU µs/request, quiet (median)', q.median.toFixed(0)],
  [`server CPU µs/request, ${AA ? 'second quiet' : 'default'} (median)`, d.median.toFixed(0)],
  ['cost, all rounds summed (default / quiet - 1)', `${(total * 100).toFixed(1)} %`],
  ['cost, median of paired rounds', `${((p.median - 1) * 100).toFixed(1)} %`],
  ['request line alone, CPU µs (in-process, median of 3)', line.median.toFixed(2)],
  ['request line / quiet request', `${((line.median / q.median) * 100).toFixed(1)} %`],
  ['load average (1 min)', (loadavg()[0] ?? 0).toFixed(2)],
]);
console.log(
  JSON.stringify({
    rounds: ROUNDS,
    batch: BATCH,
    quiet_cpu_us: +q.median.toFixed(1),
    default_cpu_us: +d.median.toFixed(1),
    cost_summed: +total.toFixed(4),
    cost_paired_median: +(p.median - 1).toFixed(4),
    line_cpu_us: +line.median.toFixed(2),
  }),
);
