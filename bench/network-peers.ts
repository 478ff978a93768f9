/**
 * Our updater against its peers over a real-shaped link: the contenders of
 * bench/updater-peers.ts, each talking to nginx through bench/delay-proxy.ts (half the RTT
 * each way, one bandwidth cap shared by all connections, as an access link is), since these
 * machines have no kernel netem. Contenders: ours (the bundled CLI under plain node),
 * `curl -Z --parallel-max 50` + `openssl dgst`, tuf-js (4 targets at a time), and the floor:
 * one curl GET of a single file of the same total bytes, piped through `openssl dgst`.
 * Rounds are interleaved (the order rotates each round); medians, with ratios against the
 * floor and against curl (above 1, slower).
 *
 *   RTT_MS=50 RATE=100mbit ROUNDS=3 WORKLOAD=fresh-4k,fresh-64k,changed-12 \
 *     npx tsx bench/network-peers.ts
 *
 * (defaults as shown; PEERS=ours,ours-whole,curl,tuf,floor narrows the contenders: ours
 * reads a manifest whose small artifacts name packs, ours-whole the same release without,
 * ours-ca is ours with the environment's NODE_EXTRA_CA_CERTS (below); TUF_PARALLEL=1,4
 * runs tuf-js at each width (default 4: sequential over 10,000 files at 50 ms is 10,000
 * round trips); CURL_PARALLEL=50; OURS_ARGS='--parallel 16' passes flags to our CLI;
 * BASE_CLI=/tmp/x/cli.cjs adds another build of our CLI as "base" (a before/after in one run);
 * SHARE=connection gives each connection its own cap; RUN_TIMEOUT_S=1200 ends a run;
 * NODE_CA=keep leaves NODE_EXTRA_CA_CERTS set for the node contenders, see below; TLS=1 serves
 * everything over https, as a registry in the field is: a throwaway CA (test/helpers/tls-cert.ts)
 * that curl gets as --cacert and the node contenders as NODE_EXTRA_CA_CERTS, naming only it.)
 *
 * Set-up that is not measured (installing release 1 before an update) runs with the proxy's
 * delay and cap off. The counts come from the proxy (connections, turns: the client's
 * request bursts, one per round trip a connection waited) and from nginx's access log
 * (requests). curl and the floor are told the names to fetch; they fetch no manifest.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNginx, type Nginx } from '#test/nginx.js';
import { makeTestPki } from '#test/tls-cert.js';
import { parseBitsPerSecond, type LinkShape } from './delay-link.js';
import { startDelayProxy, type DelayProxy } from './delay-proxy.js';
import { printNetworkReport, type NetSample } from './network-report.js';
import { bundles, type PeerBundles } from './peer-bundles.js';
import { buildFixture, type PeersFixture } from './peers-fixture.js';
import {
  clearForRound,
  envInt,
  runMeasured,
  writeRandomFile,
  type ChildRun,
} from './updater-kit.js';

interface Workload {
  readonly count: number;
  readonly size: number;
  /** Files release 2 changes; 0 is a fresh install of release 1. */
  readonly changes: number;
}

const WORKLOADS: Record<string, Workload> = {
  'fresh-4k': { count: 10_000, size: 4096, changes: 0 },
  'fresh-64k': { count: 1000, size: 64 * 1024, changes: 0 },
  'changed-12': { count: 10_000, size: 4096, changes: 12 },
};
const link: LinkShape = {
  rttMs: envInt('RTT_MS', 50),
  bitsPerSecond: parseBitsPerSecond(process.env.RATE ?? '100mbit'),
};
const FAST: LinkShape = { rttMs: 0, bitsPerSecond: 0 };
const ROUNDS = envInt('ROUNDS', 3);
const CURL_PARALLEL = envInt('CURL_PARALLEL', 50);
const TUF_PARALLEL = (process.env.TUF_PARALLEL ?? '4').split(',').map(Number);
const RUN_TIMEOUT_MS = envInt('RUN_TIMEOUT_S', 1200) * 1000;
const selected = (process.env.WORKLOAD ?? 'fresh-4k,fresh-64k,changed-12').split(',');
const peers = (process.env.PEERS ?? 'ours,ours-whole,curl,tuf,floor').split(',');
const oursArgs = (process.env.OURS_ARGS ?? '').split(' ').filter((a) => a !== '');
/** Another build of our CLI (its launcher, scripts/build-cli.mjs), run beside ours as "base". */
const baseCli = process.env.BASE_CLI;
// A node process reads and parses NODE_EXTRA_CA_CERTS before it runs any JavaScript, https or
// not: 80-230 ms a start on these machines, whose environment sets it; a user's machine does
// not, and the bench speaks plain http. So the node contenders (ours, tuf-js) start without it
// unless NODE_CA=keep (docs/BENCH-NETWORK.md, the timeline).
const extraCa = process.env.NODE_EXTRA_CA_CERTS;
if (process.env.NODE_CA !== 'keep') delete process.env.NODE_EXTRA_CA_CERTS;

interface Contender {
  readonly label: string;
  /** Untimed, over the fast link: e.g. install release 1 before an update. */
  readonly setup: () => Promise<void>;
  readonly run: () => Promise<ChildRun>;
}

const q = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

/** How each client trusts the https registry (TLS=1); empty over http. */
interface Trust {
  /** Environment of the node clients (ours, tuf-js). */
  readonly env: Record<string, string>;
  /** curl's flags. */
  readonly curl: string;
}

/** Runs a child under runMeasured, ending it (and the command under /usr/bin/time) if stuck. */
async function bounded(
  command: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<ChildRun> {
  let pid: number | undefined;
  const timer = setTimeout(() => {
    if (pid === undefined) return;
    // /usr/bin/time does not pass signals on: end its children (the command), then it.
    execFile('pkill', ['-TERM', '-P', String(pid)], () => process.kill(pid ?? 0, 'SIGTERM'));
  }, RUN_TIMEOUT_MS);
  try {
    return await runMeasured(command, args, { env, onSpawn: (p) => (pid = p) });
  } finally {
    clearTimeout(timer);
  }
}
const sh = (script: string): Promise<ChildRun> => bounded('sh', ['-c', script]);

function contenders(
  w: Workload,
  base: string,
  fx: PeersFixture,
  work: string,
  bin: PeerBundles,
  trust: Trust,
): Contender[] {
  const target = w.changes > 0 ? 2 : 1;
  const cli = (version: number, dir: string, plain = '', env = {}, launcher = bin.ours) =>
    bounded(
      process.execPath,
      [
        ...[launcher, 'update', '--base-url', `${base}/v${version}${plain}`],
        ...['--pubkey', fx.pubkeyHex],
        ...['--dir', dir, '--json', '--max-artifact-bytes', String(Math.max(w.size, 1024))],
        ...oursArgs,
      ],
      { UPDATER_MACHINE_KEY: 'bench', ...trust.env, ...env },
    );
  const tuf = (parallel: number, version: number, dir: string): Promise<ChildRun> =>
    bounded(
      process.execPath,
      [
        ...[bin.tuf, `${base}/v${version}/tuf/`, `${base}/v${version}/files/`, dir],
        ...[fx.rootJson, fx.namesFile, String(parallel)],
      ],
      trust.env,
    );
  /** Fresh: an empty directory; an update: release 1 installed by the same client. */
  // A fresh round's tree is moved aside, not removed (updater-kit.ts clearForRound says why).
  const manyFiles = w.count > 1;
  const prepare = (install: (dir: string) => Promise<ChildRun>, dir: string) => async () => {
    if (w.changes === 0) {
      await clearForRound(work, dir, manyFiles);
      return;
    }
    await rm(dir, { recursive: true, force: true });
    const r = await install(dir);
    if (r.code !== 0) throw new Error(`install failed: ${r.stdout} ${r.stderr.slice(-2000)}`);
  };
  const list: Contender[] = [];
  if (peers.includes('ours')) {
    const dir = join(work, 'ours');
    list.push({
      label: 'ours update, packs',
      setup: prepare((d) => cli(1, d), dir),
      run: () => cli(target, dir),
    });
  }
  if (baseCli !== undefined) {
    // The same release and flags through another build, interleaved with ours (a before/after).
    const dir = join(work, 'base');
    list.push({
      label: 'base update, packs (BASE_CLI)',
      setup: prepare((d) => cli(1, d, '', {}, baseCli), dir),
      run: () => cli(target, dir, '', {}, baseCli),
    });
  }
  if (peers.includes('ours-ca') && extraCa !== undefined) {
    // The same client with the machine's NODE_EXTRA_CA_CERTS, as the runs before this bench cleared it.
    const dir = join(work, 'ours-ca');
    const env = { NODE_EXTRA_CA_CERTS: extraCa };
    list.push({
      label: 'ours update, packs, NODE_EXTRA_CA_CERTS',
      setup: prepare((d) => cli(1, d, '', env), dir),
      run: () => cli(target, dir, '', env),
    });
  }
  if (peers.includes('ours-whole')) {
    const dir = join(work, 'ours-whole');
    list.push({
      label: 'ours update, no packs',
      setup: prepare((d) => cli(1, d, '/plain'), dir),
      run: () => cli(target, dir, '/plain'),
    });
  }
  if (peers.includes('curl')) {
    const out = join(work, 'curl-out');
    const config = join(work, 'curl.cfg');
    const names = w.changes > 0 ? fx.changedNames : fx.files.map((f) => f.name);
    list.push({
      label: `curl -Z ${CURL_PARALLEL} + openssl`,
      setup: async () => {
        await clearForRound(work, out, manyFiles);
        const lines = names.map(
          (n) => `url = "${base}/v${target}/files/${n}"\noutput = "${out}/${n}"\n`,
        );
        await writeFile(config, lines.join(''));
      },
      run: () =>
        sh(
          `curl -sS${trust.curl} --create-dirs -Z --parallel-max ${CURL_PARALLEL} -K ${q(config)} && ` +
            `find ${q(out)} -type f -print0 | xargs -0 openssl dgst -sha256 >/dev/null`,
        ),
    });
  }
  if (peers.includes('tuf')) {
    for (const p of TUF_PARALLEL) {
      const dir = join(work, `tuf${p}`);
      list.push({
        label: p === 1 ? 'tuf-js seq' : `tuf-js ${p}-par`,
        setup: prepare((d) => tuf(p, 1, d), dir),
        run: () => tuf(p, target, dir),
      });
    }
  }
  if (peers.includes('floor')) {
    const file = join(work, 'floor.out');
    list.push({
      label: 'floor: 1 file, curl + openssl',
      setup: () => rm(file, { force: true }),
      run: () =>
        sh(
          `curl -sS${trust.curl} ${q(`${base}/floor/all.bin`)} | tee ${q(file)} | ` +
            'openssl dgst -sha256 >/dev/null',
        ),
    });
  }
  return list;
}

async function measure(nginx: Nginx, proxy: DelayProxy, c: Contender): Promise<NetSample> {
  proxy.setLink(FAST);
  await c.setup();
  proxy.setLink(link);
  const before = { log: (await nginx.accessLog()).length, proxy: proxy.stats() };
  const r = await c.run();
  proxy.setLink(FAST);
  if (r.code !== 0) throw new Error(`${c.label} failed: ${r.stdout} ${r.stderr.slice(-2000)}`);
  const log = (await nginx.accessLog()).slice(before.log);
  const after = proxy.stats();
  return {
    ms: r.wallMs,
    cpuS: r.cpuS ?? Number.NaN,
    requests: log.length,
    fileRequests: log.filter((e) => e.uri.includes('/files/') || e.uri.includes('/packs/')).length,
    connections: after.connections - before.proxy.connections,
    turns: after.turns - before.proxy.turns,
    bytesDown: after.bytesDown - before.proxy.bytesDown,
  };
}

async function runWorkload(name: string, w: Workload): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), `bench-net-${name}-`));
  const root = join(work, 'www');
  const pki = process.env.TLS === '1' ? makeTestPki() : undefined;
  const nginx = await startNginx(root, {
    gzipJson: true,
    ...(pki === undefined ? {} : { tls: pki }),
  });
  const port = Number(new URL(nginx.baseUrl).port);
  const proxy = await startDelayProxy({
    target: { host: '127.0.0.1', port },
    ...FAST,
    share: process.env.SHARE === 'connection' ? 'connection' : 'proxy',
  });
  try {
    const base = `${pki === undefined ? 'http' : 'https'}://127.0.0.1:${proxy.port}`;
    let trust: Trust = { env: {}, curl: '' };
    if (pki !== undefined) {
      const caFile = join(work, 'ca.pem');
      await writeFile(caFile, pki.caPem);
      trust = { env: { NODE_EXTRA_CA_CERTS: caFile }, curl: ` --cacert ${q(caFile)}` };
    }
    const fx = await buildFixture(root, base, w.count, w.size, w.changes > 0, w.changes);
    // The floor moves the bytes the others fetch as files, in one GET.
    const floorPath = join(root, 'floor', 'all.bin');
    await mkdir(join(root, 'floor'), { recursive: true });
    await writeRandomFile(floorPath, (w.changes > 0 ? w.changes : w.count) * w.size);
    const list = contenders(w, base, fx, work, await bundles(work), trust);
    const samples = new Map<string, NetSample[]>(list.map((c) => [c.label, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < list.length; i++) {
        const c = list[(i + round) % list.length];
        if (c === undefined) continue;
        const s = await measure(nginx, proxy, c);
        samples.get(c.label)?.push(s);
        console.error(`${name} round ${round + 1}: ${c.label} ${(s.ms / 1000).toFixed(2)} s`);
      }
    }
    const title =
      `${name}: ${w.count} x ${w.size / 1024} KiB` +
      (w.changes > 0 ? `, ${w.changes} changed` : ', fresh') +
      `; RTT ${link.rttMs} ms, ${link.bitsPerSecond / 1e6} Mbit/s` +
      `${process.env.SHARE === 'connection' ? ' per connection' : ' shared'}` +
      `${pki === undefined ? '' : ', https'}; ${ROUNDS} rounds`;
    printNetworkReport(title, link.rttMs, samples);
  } finally {
    await proxy.close();
    await nginx.stop();
    await rm(work, { recursive: true, force: true });
  }
}

for (const name of selected) {
  const w = WORKLOADS[name];
  if (w === undefined)
    throw new Error(`unknown WORKLOAD ${name}: ${Object.keys(WORKLOADS).join(', ')}`);
  await runWorkload(name, w);
}
