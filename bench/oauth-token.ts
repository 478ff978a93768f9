/**
 * Benchmark of issue 3, Proof. Run: npx tsx bench/oauth-token.ts [seconds-per-run]
 * Token endpoint requests per second on the real server (startServer, logger silent, chain
 * simulator off) against a plain node:http hello-JSON server in the same run, with autocannon:
 *  1. authorization_code grants, each with its own pre-minted code (in-process mintCode);
 *  2. refresh_token grants, each with its own refresh token (collected from run 1, so every
 *     request is a valid rotation, never a reuse);
 *  3. the plain server, a small JSON body.
 * Every request of runs 1 and 2 must be 200: a non-2xx answer aborts the benchmark.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { startServer } from '../server/src/start-server.js';

const SECONDS = Number(process.argv[2] ?? 3);
const CONNECTIONS = 10;

interface LoadResult {
  /** Requests per second over the whole run (total / duration). */
  average: number;
  total: number;
  non2xx: number;
  errors: number;
  refreshTokens: string[];
}

// autocannon runs in a worker thread so the load generator does not share the server's event
// loop. Each request takes the next body of the pool; `amount` stops the run before reuse.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const autocannon = require('autocannon');
const { url, bodies, duration, amount, connections, collect } = workerData;
let next = 0;
let done = 0;
let non200 = 0;
const refreshTokens = [];
const request = {
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  setupRequest: (req) => ({ ...req, body: bodies[next++ % bodies.length] }),
  onResponse: (status, body) => {
    done++;
    if (status !== 200) non200++;
    else if (collect) refreshTokens.push(JSON.parse(body).refresh_token);
  },
};
const opts = { url, connections, pipelining: 1, requests: [request] };
if (amount) opts.amount = amount; else opts.duration = duration;
const started = performance.now();
autocannon(opts).then(
  (r) => parentPort.postMessage({
    average: done / ((performance.now() - started) / 1000),
    total: done,
    non2xx: non200,
    errors: r.errors,
    refreshTokens,
  }),
  () => parentPort.postMessage({ average: 0, total: 0, non2xx: 0, errors: -1, refreshTokens }),
);
`;

function load(data: {
  url: string;
  bodies: string[];
  duration?: number;
  amount?: number;
  collect?: boolean;
}): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: { connections: CONNECTIONS, ...data },
    });
    worker.once('message', (m: LoadResult) => {
      resolve(m);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const server = await startServer({ simulate: false, logLevel: 'silent' });
const tokenUrl = `${server.url}/api/oauth/token`;
const hello = Buffer.from(JSON.stringify({ ok: true, hello: 'world' }));
const plain = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': hello.length });
  res.end(hello);
});
const plainUrl = await listen(plain);

function codeBodies(n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const m = server.oauth.mintCode({ client_id: 'desktop-app', subject: `u${i}` });
    out.push(
      new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: 'desktop-app',
        code: m.code,
        redirect_uri: m.redirect_uri,
        code_verifier: m.code_verifier ?? '',
      }).toString(),
    );
  }
  return out;
}

function check(name: string, r: LoadResult): void {
  if (r.non2xx !== 0 || r.errors !== 0) {
    throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors of ${r.total}`);
  }
}

// Warm-up (JIT, sockets), not counted.
check('warm-up', await load({ url: tokenUrl, bodies: codeBodies(2000), amount: 2000 }));
await load({ url: plainUrl, bodies: [''], duration: 1 });

// Size the pools from the warm-up rate so no code or refresh token is used twice.
const probe = await load({ url: tokenUrl, bodies: codeBodies(3000), amount: 3000 });
check('probe', probe);
const poolSize = Math.ceil(Math.max(probe.average, 500) * SECONDS * 1.5);

const code = await load({
  url: tokenUrl,
  bodies: codeBodies(poolSize),
  amount: poolSize,
  collect: true,
});
check('authorization_code', code);
const refreshBodies = code.refreshTokens.map((rt) =>
  new URLSearchParams({
    grant_type: 'refresh_token',
    client_id: 'desktop-app',
    refresh_token: rt,
  }).toString(),
);
const refresh = await load({ url: tokenUrl, bodies: refreshBodies, amount: refreshBodies.length });
check('refresh_token', refresh);
const plainRun = await load({ url: plainUrl, bodies: [''], duration: SECONDS });
check('plain', plainRun);

console.log(
  JSON.stringify({
    step: 'token endpoint throughput',
    connections: CONNECTIONS,
    requests: { authorization_code: code.total, refresh_token: refresh.total },
    authorization_code_req_per_s: Math.round(code.average),
    refresh_token_req_per_s: Math.round(refresh.average),
    plain_node_http_req_per_s: Math.round(plainRun.average),
    ratio_authorization_code: +(code.average / plainRun.average).toFixed(3),
    ratio_refresh_token: +(refresh.average / plainRun.average).toFixed(3),
    heap_used_mb: Math.round(process.memoryUsage().heapUsed / 1e6),
    load_average_1m: +(loadavg()[0] ?? 0).toFixed(2),
  }),
);
await server.close();
await new Promise<void>((resolve) => plain.close(() => resolve()));
