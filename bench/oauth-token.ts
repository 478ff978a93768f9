/**
 * Token endpoint throughput against panva's oidc-provider (bench/oidc-peer.ts) in the same run:
 * both grants (authorization_code with PKCE S256, refresh_token with rotation) for both client
 * kinds (public `desktop-app`, confidential `qa-web` with client_secret_basic). Three servers:
 *   ours quiet    startServer, logger silent, chain simulator off;
 *   ours default  the flags `npm run server` defaults to: info logging (to /dev/null) and the
 *                 chain simulator on;
 *   oidc-provider 9.
 * Each run sends AMOUNT requests, each with its own pre-minted code (or its own refresh token,
 * collected from that server's code run, so every refresh is a valid rotation). Servers run in
 * interleaved rounds (the order rotates); medians of requests/s are compared as ratios.
 * Every request must be 200: anything else aborts the benchmark.
 *
 *   npx tsx bench/oauth-token.ts            (ROUNDS=3 AMOUNT=4000)
 */
import { loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { destination } from 'pino';
import { startServer, type RunningServer } from '../server/src/start-server.js';
import {
  CONFIDENTIAL_REDIRECT,
  PUBLIC_REDIRECT,
  startOidcPeer,
  type OidcPeer,
} from './oidc-peer.js';
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

/** One server under test: where to post, how to mint a code, how a client authenticates. */
interface Target {
  readonly label: string;
  readonly tokenUrl: string;
  mint(kind: Kind, i: number): Promise<{ code: string; verifier: string; redirect: string }>;
  readonly secret: string;
}

function ours(label: string, server: RunningServer): Target {
  return {
    label,
    tokenUrl: `${server.url}/api/oauth/token`,
    secret: server.oauth.qaClientSecret,
    mint: (kind, i) => {
      const m = server.oauth.mintCode({ client_id: CLIENT[kind], subject: `u${i}` });
      return Promise.resolve({
        code: m.code,
        verifier: m.code_verifier ?? '',
        redirect: m.redirect_uri,
      });
    },
  };
}

function peer(p: OidcPeer, secret: string, redirects: Record<Kind, string>): Target {
  return {
    label: 'oidc-provider',
    tokenUrl: p.tokenUrl,
    secret,
    mint: async (kind, i) => ({
      ...(await p.mint(CLIENT[kind], `u${i}`)),
      redirect: redirects[kind],
    }),
  };
}

function check(what: string, r: LoadResult, expected: number): void {
  if (r.non200 !== 0 || r.errors !== 0 || r.total !== expected) {
    throw new Error(`${what}: ${r.non200} non-200, ${r.errors} errors, ${r.total}/${expected}`);
  }
}

/** A code run then a refresh run of `amount` requests each; requests/s of both. */
async function grants(t: Target, kind: Kind, amount: number): Promise<[number, number]> {
  const client = CLIENT[kind];
  const headers: Record<string, string> =
    kind === 'confidential' ? { authorization: basic(client, t.secret) } : {};
  const id: Record<string, string> = kind === 'public' ? { client_id: client } : {};
  const codes: string[] = [];
  for (let i = 0; i < amount; i++) {
    const m = await t.mint(kind, i);
    codes.push(
      form({
        grant_type: 'authorization_code',
        ...id,
        code: m.code,
        redirect_uri: m.redirect,
        code_verifier: m.verifier,
      }),
    );
  }
  const code = await load(t.tokenUrl, codes, headers);
  check(`${t.label} ${kind} authorization_code`, code, amount);
  const refreshBodies = code.refreshTokens.map((rt) =>
    form({ grant_type: 'refresh_token', ...id, refresh_token: rt }),
  );
  const refresh = await load(t.tokenUrl, refreshBodies, headers);
  check(`${t.label} ${kind} refresh_token`, refresh, amount);
  return [code.rate, refresh.rate];
}

const quiet = await startServer({ simulate: false, logLevel: 'silent' });
const loud = await startServer(
  { simulate: true, logLevel: 'info' },
  { logStream: destination({ dest: '/dev/null' }) },
);
const secret = quiet.oauth.qaClientSecret;
const oidc = await startOidcPeer(secret);
const redirects = { public: PUBLIC_REDIRECT, confidential: CONFIDENTIAL_REDIRECT };
// Each of our servers has its own qa-web secret; oidc-provider gets the quiet one's.
const targets = [
  ours('ours quiet', quiet),
  ours('ours default', loud),
  peer(oidc, secret, redirects),
];

const samples = new Map<string, number[]>();
const add = (key: string, value: number): void => {
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
  await Promise.all([quiet.close(), loud.close(), oidc.close()]);
}

const median = (key: string): number => percentiles(samples.get(key) ?? []).median;
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
for (const s of scenarios) {
  const q = median(`ours quiet|${s}`);
  const d = median(`ours default|${s}`);
  const o = median(`oidc-provider|${s}`);
  rows.push([
    s,
    `ours quiet ${q.toFixed(0)}  ours default ${d.toFixed(0)}  oidc-provider ${o.toFixed(0)} req/s`,
  ]);
  rows.push([`  ratio ours quiet / oidc-provider`, `${(q / o).toFixed(2)}x`]);
  rows.push([`  ratio ours default / oidc-provider`, `${(d / o).toFixed(2)}x`]);
  rows.push([`  cost of default flags (1 - default/quiet)`, `${((1 - d / q) * 100).toFixed(1)} %`]);
  summary[s] = {
    ours_quiet: Math.round(q),
    ours_default: Math.round(d),
    oidc_provider: Math.round(o),
    ratio_quiet: +(q / o).toFixed(3),
    ratio_default: +(d / o).toFixed(3),
  };
}
rows.push(['load average (1 min)', (loadavg()[0] ?? 0).toFixed(2)]);
printTable(`token endpoint, medians of ${ROUNDS} interleaved rounds of ${AMOUNT} requests`, rows);
console.log(JSON.stringify(summary));
