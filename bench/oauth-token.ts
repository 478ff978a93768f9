/**
 * Token endpoint against panva's oidc-provider (bench/oidc-peer.ts) in the same run: both
 * grants (authorization_code with PKCE S256, refresh_token with rotation) for both client
 * kinds (public `desktop-app`, confidential `qa-web` with client_secret_basic). Three servers,
 * each in its own process (bench/oauth-server-child.ts):
 *   ours quiet    logger silent, chain simulator off;
 *   ours default  the flags `npm run server` defaults to: info logging (to /dev/null) and the
 *                 chain simulator on;
 *   oidc-provider 9.
 * Each run sends AMOUNT requests, each with its own pre-minted code (or its own refresh token,
 * collected from that server's code run, so every refresh is a valid rotation). Servers run in
 * interleaved rounds (the order rotates); medians are compared as ratios: requests/s, and the
 * server process's CPU time per request (/proc, much less disturbed by other load on the
 * machine than wall-clock rates). Every request must be 200, or the benchmark aborts.
 *
 *   npx tsx bench/oauth-token.ts            (ROUNDS=3 AMOUNT=4000)
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Minted } from './oauth-server-child.js';
import { startServerChild } from './server-child-ipc.js';
import { envInt, percentiles, printTable } from './updater-kit.js';

const ROUNDS = envInt('ROUNDS', 3);
const AMOUNT = envInt('AMOUNT', 4000);
const CONNECTIONS = 10;

type Kind = 'public' | 'confidential';
const CLIENT: Record<Kind, 'desktop-app' | 'qa-web'> = {
  public: 'desktop-app',
  confidential: 'qa-web',
};

interface LoadResult {
  rate: number;
  total: number;
  non200: number;
  errors: number;
  refreshTokens: string[];
}

// autocannon in a worker thread, so the load generator has its own event loop. Each request
// takes the next body of the pool; `amount` ends the run before any body is reused.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const autocannon = require('autocannon');
const { url, bodies, headers, connections } = workerData;
let next = 0, done = 0, non200 = 0, last = 0;
const refreshTokens = [];
const request = {
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  setupRequest: (req) => ({ ...req, body: bodies[next++] }),
  onResponse: (status, body) => {
    done++;
    last = performance.now();
    if (status !== 200) non200++;
    else refreshTokens.push(JSON.parse(body).refresh_token);
  },
};
const started = performance.now();
autocannon({ url, connections, pipelining: 1, amount: bodies.length, requests: [request] }).then(
  (r) => parentPort.postMessage({
    // Up to the last answer: autocannon notices the end of an 'amount' run on a 1 s tick.
    rate: done / ((last - started) / 1000), total: done, non200, errors: r.errors,
    refreshTokens,
  }),
  () => parentPort.postMessage({ rate: 0, total: 0, non200: 0, errors: -1, refreshTokens }),
);
`;

function load(url: string, bodies: string[], headers: Record<string, string>): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: { url, bodies, headers, connections: CONNECTIONS },
    });
    worker.once('message', (m: LoadResult) => {
      resolve(m);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

const form = (fields: Record<string, string>): string => new URLSearchParams(fields).toString();
const basic = (id: string, secret: string): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** One server under test, in its own process. */
interface Target {
  readonly label: string;
  readonly tokenUrl: string;
  readonly secret: string;
  mint(kind: Kind, n: number): Promise<readonly Minted[]>;
  /** CPU time (user + system) the server process has used so far, in ms. */
  cpuMs(): number;
  stop(): void;
}

const CLK_TCK = 100; // Linux USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s

async function startTarget(label: string, which: 'quiet' | 'default' | 'oidc'): Promise<Target> {
  const server = await startServerChild(label, which);
  const pid = server.child.pid;
  return {
    label,
    tokenUrl: server.tokenUrl,
    secret: server.secret,
    async mint(kind, n) {
      const m = await server.ask({ mint: kind, n });
      if (!('minted' in m)) throw new Error(`${label}: unexpected message`);
      return m.minted;
    },
    cpuMs() {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ');
      const ticks = Number(fields?.[11] ?? NaN) + Number(fields?.[12] ?? NaN);
      return (ticks * 1000) / CLK_TCK;
    },
    stop: () => server.child.kill(),
  };
}

function check(what: string, r: LoadResult, expected: number): void {
  if (r.non200 !== 0 || r.errors !== 0 || r.total !== expected) {
    throw new Error(`${what}: ${r.non200} non-200, ${r.errors} errors, ${r.total}/${expected}`);
  }
}

interface RunFigures {
  readonly rate: number;
  /** Server CPU µs per request. */
  readonly cpuUs: number;
}

/** A code run then a refresh run of `amount` requests each. */
async function grants(t: Target, kind: Kind, amount: number): Promise<[RunFigures, RunFigures]> {
  const client = CLIENT[kind];
  const headers: Record<string, string> =
    kind === 'confidential' ? { authorization: basic(client, t.secret) } : {};
  const id: Record<string, string> = kind === 'public' ? { client_id: client } : {};
  const codes = (await t.mint(kind, amount)).map((m) =>
    form({
      grant_type: 'authorization_code',
      ...id,
      code: m.code,
      redirect_uri: m.redirect,
      code_verifier: m.verifier,
    }),
  );
  const measured = async (bodies: string[], what: string): Promise<[RunFigures, string[]]> => {
    const cpu0 = t.cpuMs();
    const r = await load(t.tokenUrl, bodies, headers);
    const cpuUs = ((t.cpuMs() - cpu0) * 1000) / bodies.length;
    check(`${t.label} ${kind} ${what}`, r, bodies.length);
    return [{ rate: r.rate, cpuUs }, r.refreshTokens];
  };
  const [code, refreshTokens] = await measured(codes, 'authorization_code');
  const refreshBodies = refreshTokens.map((rt) =>
    form({ grant_type: 'refresh_token', ...id, refresh_token: rt }),
  );
  const [refresh] = await measured(refreshBodies, 'refresh_token');
  return [code, refresh];
}

const targets = [
  await startTarget('ours quiet', 'quiet'),
  await startTarget('ours default', 'default'),
  await startTarget('oidc-provider', 'oidc'),
];

const samples = new Map<string, RunFigures[]>();
const add = (key: string, value: RunFigures): void => {
  samples.set(key, [...(samples.get(key) ?? []), value]);
};
try {
  // Warm-up (JIT, sockets), not counted.
  for (const t of targets)
    for (const kind of ['public', 'confidential'] as const) await grants(t, kind, 500);
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of ['public', 'confidential'] as const) {
      for (let i = 0; i < targets.length; i++) {
        const t = targets[(i + round) % targets.length];
        if (t === undefined) continue;
        const [code, refresh] = await grants(t, kind, AMOUNT);
        add(`${t.label}|${kind} authorization_code`, code);
        add(`${t.label}|${kind} refresh_token`, refresh);
      }
    }
  }
} finally {
  for (const t of targets) t.stop();
}

const median = (key: string, pick: (f: RunFigures) => number): number =>
  percentiles((samples.get(key) ?? []).map(pick)).median;
const scenarios = [
  'public authorization_code',
  'public refresh_token',
  'confidential authorization_code',
  'confidential refresh_token',
];
const rows: [string, string][] = [];
const summary: Record<string, unknown> = {
  rounds: ROUNDS,
  amount: AMOUNT,
  connections: CONNECTIONS,
};
const LABELS = ['ours quiet', 'ours default', 'oidc-provider'];
for (const s of scenarios) {
  const [q, d, o] = LABELS.map((l) => median(`${l}|${s}`, (f) => f.rate)) as [
    number,
    number,
    number,
  ];
  const [cq, cd, co] = LABELS.map((l) => median(`${l}|${s}`, (f) => f.cpuUs)) as [
    number,
    number,
    number,
  ];
  rows.push([
    s,
    `req/s: ours quiet ${q.toFixed(0)}, ours default ${d.toFixed(0)}, oidc-provider ${o.toFixed(0)}`,
  ]);
  rows.push(['', `server CPU us/request: ${cq.toFixed(0)}, ${cd.toFixed(0)}, ${co.toFixed(0)}`]);
  rows.push(['  throughput ours quiet / oidc-provider', `${(q / o).toFixed(2)}x`]);
  rows.push(['  throughput ours default / oidc-provider', `${(d / o).toFixed(2)}x`]);
  rows.push(['  CPU per request oidc-provider / ours quiet', `${(co / cq).toFixed(2)}x`]);
  rows.push(['  CPU per request oidc-provider / ours default', `${(co / cd).toFixed(2)}x`]);
  rows.push([
    '  cost of default flags in CPU (default/quiet - 1)',
    `${((cd / cq - 1) * 100).toFixed(1)} %`,
  ]);
  summary[s] = {
    req_per_s: {
      ours_quiet: Math.round(q),
      ours_default: Math.round(d),
      oidc_provider: Math.round(o),
    },
    cpu_us_per_request: {
      ours_quiet: Math.round(cq),
      ours_default: Math.round(cd),
      oidc_provider: Math.round(co),
    },
    throughput_ratio_quiet: +(q / o).toFixed(3),
    throughput_ratio_default: +(d / o).toFixed(3),
    cpu_ratio_quiet: +(co / cq).toFixed(3),
    cpu_ratio_default: +(co / cd).toFixed(3),
  };
}
rows.push(['load average (1 min)', (loadavg()[0] ?? 0).toFixed(2)]);
printTable(`token endpoint, medians of ${ROUNDS} interleaved rounds of ${AMOUNT} requests`, rows);
console.log(JSON.stringify(summary));
