/**
 * Soak of the companion server under abuse (docs/SERVER.md §Sockets, §Rate limits). Run:
 *   npx tsx bench/server-soak.ts            (60 s; SOAK_SECONDS=300 for the 5-minute run)
 * The server runs as `npm run server` would, in its own process (its RSS is its own), on a
 * fresh data directory. A legitimate manifest poller (4 keep-alive connections) runs alone for
 * the first quarter, then beside the abuse for the rest: a mint flood, machine-key guessing,
 * sockets trickling a request body and sockets that send nothing, all from 127.0.0.2 (the
 * poller is 127.0.0.1). Health probes (a new connection each) run throughout. Reports the
 * poller's throughput with abuse vs without, probe success, the server's RSS, the limits'
 * effect, and orphan blobs and temporary files left in the data directory. Loopback only.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { referencedDigests } from '#server/updates/publish/blob-sweep.js';

const SECONDS = Number(process.env['SOAK_SECONDS'] ?? 60);
const TRICKLE_SOCKETS = 300;
const IDLE_SOCKETS = 300;
const ABUSER = '127.0.0.2';

interface Answer {
  readonly status: number;
  readonly body: string;
}

function get(
  url: string,
  opts: {
    agent?: Agent;
    headers?: Record<string, string>;
    method?: string;
    localAddress?: string;
  } = {},
): Promise<Answer> {
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        method: opts.method ?? 'GET',
        ...(opts.agent === undefined ? { agent: false } : { agent: opts.agent }),
        headers: opts.headers ?? {},
        ...(opts.localAddress === undefined ? {} : { localAddress: opts.localAddress }),
        timeout: 5_000,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', () => resolve({ status: 0, body }));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.end();
  });
}

async function startChild(dataDir: string): Promise<{ url: string; pid: number; stop(): void }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'server/src/cli/main.ts',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--simulate',
      'off',
      '--log-level',
      'warn',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout }).once('line', resolve),
  );
  child.stdout.resume();
  const first = JSON.parse(line) as { url: string };
  return { url: first.url, pid: child.pid ?? 0, stop: () => child.kill('SIGTERM') };
}

async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
  return kb === undefined ? 0 : Number(kb) / 1024;
}

/** Polls the manifest on 4 keep-alive connections until `until()`; returns 200s per second. */
async function poll(
  url: string,
  key: string,
  ms: number,
): Promise<{ perS: number; errors: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const end = Date.now() + ms;
  let ok = 0;
  let errors = 0;
  await Promise.all(
    [0, 1, 2, 3].map(async () => {
      while (Date.now() < end) {
        const a = await get(`${url}/api/updates/manifest`, {
          agent,
          headers: { authorization: `Bearer ${key}` },
        });
        if (a.status === 200) ok += 1;
        else errors += 1;
      }
    }),
  );
  agent.destroy();
  return { perS: ok / (ms / 1000), errors };
}

/**
 * Keeps `n` sockets open that `start` feeds (or not), reopening each one that closes. Counts
 * the sockets that connected and those the server closed after they had connected (a connect
 * still waiting in the listen queue, or refused, counts in neither).
 */
function holdSockets(
  port: number,
  n: number,
  start: (s: Socket) => void,
  stop: () => boolean,
): { connected: () => number; closedByServer: () => number } {
  let connected = 0;
  let closed = 0;
  const open = (): void => {
    if (stop()) return;
    let up = false;
    const s = connect({ port, host: '127.0.0.1', localAddress: ABUSER }, () => {
      up = true;
      connected += 1;
      start(s);
    });
    s.on('error', () => undefined);
    // Read what the server says (a 408), or the socket never sees the server's end.
    s.resume();
    s.on('close', () => {
      if (up) closed += 1;
      setTimeout(open, 10);
    });
  };
  for (let i = 0; i < n; i += 1) open();
  return { connected: () => connected, closedByServer: () => closed };
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'server-soak-'));
  const server = await startChild(dataDir);
  const port = Number(new URL(server.url).port);
  const minted = await get(`${server.url}/api/demo-key/mint`, { method: 'POST' });
  const key = (JSON.parse(minted.body) as { machine_key: string }).machine_key;
  const rss: number[] = [await rssMiB(server.pid)];
  const rssTimer = setInterval(() => void rssMiB(server.pid).then((r) => rss.push(r)), 2_000);
  let abusing = false;
  let done = false;
  const probes = { sent: 0, ok: 0 };
  const probeTimer = setInterval(() => {
    probes.sent += 1;
    void get(`${server.url}/healthz`).then((a) => (probes.ok += a.status === 200 ? 1 : 0));
  }, 200);

  const baselineMs = (SECONDS * 1000) / 4;
  const baseline = await poll(server.url, key, baselineMs);

  abusing = true;
  const stopAbuse = (): boolean => done;
  const abuse = { mints: 0, mint429: 0, guesses: 0, guess429: 0 };
  const flood = async (
    path: string,
    method: string,
    headers: Record<string, string>,
    count: (s: number) => void,
  ): Promise<void> => {
    while (!done)
      count((await get(`${server.url}${path}`, { method, headers, localAddress: ABUSER })).status);
  };
  const floods = [
    ...[0, 1].map(() =>
      flood('/api/demo-key/mint', 'POST', {}, (s) => {
        abuse.mints += 1;
        abuse.mint429 += s === 429 ? 1 : 0;
      }),
    ),
    ...[0, 1].map(() =>
      flood(
        '/api/updates/manifest',
        'GET',
        { authorization: `Bearer mk_${'A'.repeat(43)}` },
        (s) => {
          abuse.guesses += 1;
          abuse.guess429 += s === 429 ? 1 : 0;
        },
      ),
    ),
  ];
  const trickle = holdSockets(
    port,
    TRICKLE_SOCKETS,
    (s) => {
      s.write(
        'POST /api/demo-key/mint HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n',
      );
      const t = setInterval(() => (s.writable ? s.write(' ') : clearInterval(t)), 1_000);
      s.on('close', () => clearInterval(t));
    },
    stopAbuse,
  );
  const idle = holdSockets(port, IDLE_SOCKETS, () => undefined, stopAbuse);
  const during = await poll(server.url, key, SECONDS * 1000 - baselineMs);
  done = true;
  await Promise.all(floods);
  clearInterval(probeTimer);
  clearInterval(rssTimer);
  await new Promise((r) => setTimeout(r, 500));

  const keep = await referencedDigests([join(dataDir, 'releases'), join(dataDir, 'legacy')]);
  let orphans = 0;
  let temps = 0;
  for (const entry of await readdir(join(dataDir, 'blobs')).catch(() => [])) {
    if (entry.endsWith('.tmp')) temps += 1;
    for (const name of await readdir(join(dataDir, 'blobs', entry)).catch(() => [])) {
      if (name.endsWith('.tmp')) temps += 1;
      else if (!keep.has(name)) orphans += 1;
    }
  }
  for (const entry of await readdir(dataDir)) if (entry.endsWith('.tmp')) temps += 1;
  server.stop();
  console.log(
    JSON.stringify(
      {
        seconds: SECONDS,
        manifest_per_s_alone: Math.round(baseline.perS),
        manifest_per_s_under_abuse: Math.round(during.perS),
        ratio: Number((during.perS / baseline.perS).toFixed(3)),
        poller_errors: baseline.errors + during.errors,
        health_probes: `${probes.ok}/${probes.sent}`,
        rss_mib: {
          start: rss[0]?.toFixed(1),
          max: Math.max(...rss).toFixed(1),
          end: rss.at(-1)?.toFixed(1),
        },
        abuse: {
          ...abuse,
          trickle_connected: trickle.connected(),
          trickle_closed_by_server: trickle.closedByServer(),
          idle_connected: idle.connected(),
          idle_closed_by_server: idle.closedByServer(),
        },
        abusing,
        orphan_blobs: orphans,
        temp_files: temps,
      },
      null,
      2,
    ),
  );
  await rm(dataDir, { recursive: true, force: true });
}

await main();
