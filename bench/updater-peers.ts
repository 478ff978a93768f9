/**
 * Our updater against its peers on every shape of release, all from one nginx on loopback:
 * tuf-js 5 (sequential and 4 targets at a time), `curl -Z --parallel-max 4` + `openssl dgst`,
 * and `curl | tee FILE | openssl dgst -sha256`. Ours is the bundled CLI (scripts/build-cli.mjs)
 * run by plain node under /usr/bin/time -v (peak RSS). Contenders run in interleaved rounds
 * (the order rotates each round); medians are compared as ratios, ours / theirs (below 1 we
 * are faster).
 *
 *   WORKLOAD=large|many-64k|many-4k|changed|noop|huge npx tsx bench/updater-peers.ts
 *   (default: all but huge; ROUNDS=3; BENCH_LARGE_MIB=512; huge is 4 GiB, ours + curl only;
 *   PEERS=curl-z,curl-tee,tuf,ours-whole narrows the peers while iterating (ours-whole: our
 *   CLI on the same release without packs); OURS_NODE_ARGS passes node
 *   flags to our CLI only, e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof'; GZIP_JSON=0 turns off
 *   nginx's gzip of JSON; TLS=1 serves everything over https, as a registry in the field
 *   is: a throwaway CA (test/helpers/tls-cert.ts) that curl gets as --cacert and node as
 *   NODE_EXTRA_CA_CERTS, which then names only it; TMPDIR picks the file system that holds
 *   nginx's files and every contender's output: see docs/UPDATER.md §8, item (11), for why an
 *   ext4 without a journal makes fresh installs of many files noisy)
 *
 * nginx gzips JSON as a stock set-up does (test/helpers/nginx.ts `gzipJson`): our manifest
 * answer and tuf-js's metadata alike, each client taking it if it offers gzip (tuf-js's fetch
 * does; ours does for the manifest, docs/PROTOCOL.md §2.7.6, Content coding).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNginx, type Nginx } from '#test/nginx.js';
import { makeTestPki } from '#test/tls-cert.js';
import { bundles } from './peer-bundles.js';
import { buildFixture, type PeersFixture } from './peers-fixture.js';
import {
  clearForRound,
  envInt,
  mib,
  MiB,
  percentiles,
  printTable,
  runMeasured,
  type ChildRun,
} from './updater-kit.js';

interface Workload {
  readonly count: number;
  readonly size: number;
  readonly kind: 'fresh' | 'changed' | 'noop';
  readonly peers: readonly ('tuf' | 'curl-z' | 'curl-tee')[];
}

const WORKLOADS: Record<string, Workload> = {
  large: {
    count: 1,
    size: envInt('BENCH_LARGE_MIB', 512) * MiB,
    kind: 'fresh',
    peers: ['tuf', 'curl-z', 'curl-tee'],
  },
  'many-64k': { count: 1000, size: 64 * 1024, kind: 'fresh', peers: ['tuf', 'curl-z'] },
  'many-4k': { count: 10_000, size: 4096, kind: 'fresh', peers: ['tuf', 'curl-z'] },
  changed: { count: 100, size: MiB, kind: 'changed', peers: ['tuf', 'curl-z'] },
  noop: { count: 10_000, size: 4096, kind: 'noop', peers: ['tuf'] },
  huge: { count: 1, size: 4096 * MiB, kind: 'fresh', peers: ['curl-tee'] },
};
const ROUNDS = envInt('ROUNDS', 3);
const selected = (process.env.WORKLOAD ?? 'large,many-64k,many-4k,changed,noop').split(',');
const peersWanted = process.env.PEERS?.split(',');
/** Extra node flags for our CLI only, e.g. OURS_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/p'. */
const oursNodeArgs = (process.env.OURS_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
const wanted = (peer: string): boolean => peersWanted === undefined || peersWanted.includes(peer);
interface Sample {
  readonly ms: number;
  readonly rss: number;
  /** CPU seconds (user + system, children included): much less disturbed by other load. */
  readonly cpuS: number;
  /** Bytes nginx sent during the run, for artifacts and for our manifest. */
  readonly artifactBytes: number;
  readonly manifestBytes: number;
}

interface Contender {
  readonly label: string;
  /** Untimed preparation before each timed run (e.g. install release 1). */
  readonly setup?: () => Promise<void>;
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
const sh = (script: string): Promise<ChildRun> => runMeasured('sh', ['-c', script]);

function contenders(
  w: Workload,
  nginx: Nginx,
  fx: PeersFixture,
  work: string,
  bin: { ours: string; tuf: string },
  trust: Trust,
): Contender[] {
  const target = w.kind === 'changed' ? 2 : 1;
  const oursDir = join(work, 'ours');
  const cli = (command: string, version: number, dir: string, plain = ''): Promise<ChildRun> =>
    runMeasured(
      process.execPath,
      [
        ...oursNodeArgs,
        ...[bin.ours, command, '--base-url', `${nginx.baseUrl}/v${version}${plain}`],
        ...['--pubkey', fx.pubkeyHex, '--dir', dir, '--json'],
        ...['--max-artifact-bytes', String(Math.max(w.size, 1024))],
      ],
      { env: { ...trust.env, UPDATER_MACHINE_KEY: 'bench' } },
    );
  const tuf = (parallel: number, version: number, dir: string): Promise<ChildRun> =>
    runMeasured(
      process.execPath,
      [
        bin.tuf,
        `${nginx.baseUrl}/v${version}/tuf/`,
        `${nginx.baseUrl}/v${version}/files/`,
        dir,
        fx.rootJson,
        fx.namesFile,
        String(parallel),
      ],
      { env: trust.env },
    );
  const manyFiles = w.count > 1;
  const fresh = (dir: string) => (): Promise<void> => clearForRound(work, dir, manyFiles);
  const installed = (install: (dir: string) => Promise<ChildRun>, dir: string) => async () => {
    await rm(dir, { recursive: true, force: true });
    const r = await install(dir);
    if (r.code !== 0) throw new Error(`install failed: ${r.stdout} ${r.stderr.slice(-2000)}`);
  };
  const list: Contender[] = [];
  const out = join(work, 'peer-out');
  const names = w.kind === 'changed' ? [fx.changed ?? ''] : fx.files.map((f) => f.name);

  if (w.kind === 'noop') {
    // Installed once (before the rounds); each timed run must change nothing.
    list.push({ label: 'ours update', run: () => cli('update', 1, oursDir) });
    list.push({ label: 'ours check', run: () => cli('check', 1, oursDir) });
    if (wanted('tuf')) {
      list.push({ label: 'tuf-js seq', run: () => tuf(1, 1, join(work, 'tuf1')) });
      list.push({ label: 'tuf-js 4-par', run: () => tuf(4, 1, join(work, 'tuf1')) });
    }
    // The files we installed (DIR/current is a symlink: -L follows it).
    const files = join(oursDir, 'current');
    list.push({
      label: 'openssl re-hash all',
      run: () =>
        sh(`find -L ${q(files)} -type f -print0 | xargs -0 openssl dgst -sha256 >/dev/null`),
    });
    return list;
  }
  const prepare = (install: (dir: string) => Promise<ChildRun>, dir: string) =>
    w.kind === 'changed' ? installed(install, dir) : fresh(dir);
  list.push({
    label: 'ours update',
    setup: prepare((d) => cli('update', 1, d), oursDir),
    run: () => cli('update', target, oursDir),
  });
  if (wanted('ours-whole')) {
    // The same release without packs (peers-fixture.ts vN/plain): the whole-file pull.
    const dir = join(work, 'ours-whole');
    list.push({
      label: 'ours update, no packs',
      setup: prepare((d) => cli('update', 1, d, '/plain'), dir),
      run: () => cli('update', target, dir, '/plain'),
    });
  }
  if (w.peers.includes('tuf') && wanted('tuf')) {
    for (const p of [1, 4]) {
      const dir = join(work, `tuf${p}`);
      list.push({
        label: p === 1 ? 'tuf-js seq' : 'tuf-js 4-par',
        setup: prepare((d) => tuf(p, 1, d), dir),
        run: () => tuf(p, target, dir),
      });
    }
  }
  if (w.peers.includes('curl-z') && wanted('curl-z')) {
    const config = join(work, 'curl.cfg');
    list.push({
      label: 'curl -Z 4 + openssl',
      setup: async () => {
        await clearForRound(work, out, manyFiles);
        const lines = names.map(
          (n) => `url = "${nginx.baseUrl}/v${target}/files/${n}"\noutput = "${out}/${n}"\n`,
        );
        await writeFile(config, lines.join(''));
      },
      run: () =>
        sh(
          `curl -sS${trust.curl} --create-dirs -Z --parallel-max 4 -K ${q(config)} && ` +
            `find ${q(out)} -type f -print0 | xargs -0 openssl dgst -sha256 >/dev/null`,
        ),
    });
  }
  if (w.peers.includes('curl-tee') && wanted('curl-tee')) {
    const file = join(work, 'tee.out');
    const url = `${nginx.baseUrl}/v1/files/${names[0] ?? ''}`;
    list.push({
      label: 'curl | tee | openssl',
      setup: () => rm(file, { force: true }),
      run: () =>
        sh(`curl -sS${trust.curl} ${q(url)} | tee ${q(file)} | openssl dgst -sha256 >/dev/null`),
    });
  }
  return list;
}

async function measure(nginx: Nginx, c: Contender): Promise<Sample> {
  await c.setup?.();
  const before = (await nginx.accessLog()).length;
  const r = await c.run();
  if (r.code !== 0) throw new Error(`${c.label} failed: ${r.stdout} ${r.stderr.slice(-2000)}`);
  const log = (await nginx.accessLog()).slice(before);
  const sum = (pred: (uri: string) => boolean): number =>
    log.filter((e) => pred(e.uri)).reduce((n, e) => n + e.bodyBytesSent, 0);
  return {
    ms: r.wallMs,
    rss: r.peakRssBytes ?? Number.NaN,
    cpuS: r.cpuS ?? Number.NaN,
    artifactBytes: sum((u) => u.includes('/files/')),
    manifestBytes: sum((u) => u.endsWith('/api/updates/manifest')),
  };
}

async function runWorkload(name: string, w: Workload): Promise<Record<string, unknown>> {
  const work = await mkdtemp(join(tmpdir(), `bench-peers-${name}-`));
  const root = join(work, 'www');
  const pki = process.env.TLS === '1' ? makeTestPki() : undefined;
  const nginx = await startNginx(root, {
    gzipJson: process.env.GZIP_JSON !== '0',
    ...(pki === undefined ? {} : { tls: pki }),
  });
  try {
    let trust: Trust = { env: {}, curl: '' };
    if (pki !== undefined) {
      const caFile = join(work, 'ca.pem');
      await writeFile(caFile, pki.caPem);
      trust = { env: { NODE_EXTRA_CA_CERTS: caFile }, curl: ` --cacert ${q(caFile)}` };
    }
    const fx = await buildFixture(root, nginx.baseUrl, w.count, w.size, w.kind === 'changed');
    const bin = await bundles(work);
    const list = contenders(w, nginx, fx, work, bin, trust);
    if (w.kind === 'noop') await installForNoop(list);
    const samples = new Map<string, Sample[]>(list.map((c) => [c.label, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < list.length; i++) {
        const c = list[(i + round) % list.length];
        if (c !== undefined) samples.get(c.label)?.push(await measure(nginx, c));
      }
    }
    return report(pki === undefined ? name : `${name} (https)`, w, samples);
  } finally {
    await nginx.stop();
    await rm(work, { recursive: true, force: true });
  }
}

/** Installs release 1 for the no-op contenders (ours and tuf-js) before any timed run. */
async function installForNoop(list: readonly Contender[]): Promise<void> {
  for (const label of ['ours update', 'tuf-js seq']) {
    const c = list.find((x) => x.label === label);
    if (c === undefined) continue;
    const r = await c.run();
    if (r.code !== 0) throw new Error(`install for no-op failed: ${r.stderr.slice(-2000)}`);
  }
}

function report(
  name: string,
  w: Workload,
  samples: Map<string, Sample[]>,
): Record<string, unknown> {
  const med = (label: string, pick: (s: Sample) => number): number =>
    percentiles((samples.get(label) ?? []).map(pick)).median;
  const maxRss = (label: string): number =>
    Math.max(...(samples.get(label) ?? []).map((s) => s.rss));
  const ours = med('ours update', (s) => s.ms);
  const rows: [string, string][] = [];
  for (const [label, list] of samples) {
    const runs = list.map((s) => s.ms.toFixed(0)).join(', ');
    rows.push([
      label,
      `median ${med(label, (s) => s.ms).toFixed(0)} ms  (runs ${runs})  CPU ${med(label, (s) => s.cpuS).toFixed(2)} s  peak RSS ${mib(maxRss(label))}`,
    ]);
  }
  const ratios: Record<string, number> = {};
  const cpuRatios: Record<string, number> = {};
  const oursCpu = med('ours update', (s) => s.cpuS);
  for (const label of samples.keys()) {
    if (label.startsWith('ours')) continue;
    ratios[label] = +(ours / med(label, (s) => s.ms)).toFixed(3);
    cpuRatios[label] = +(oursCpu / med(label, (s) => s.cpuS)).toFixed(3);
    rows.push([`ratio ours update / ${label}`, `${ratios[label]}x (CPU ${cpuRatios[label]}x)`]);
  }
  if (samples.has('ours check')) {
    rows.push(['ours check median', `${med('ours check', (s) => s.ms).toFixed(0)} ms`]);
  }
  const bytes = med('ours update', (s) => s.artifactBytes);
  const manifest = med('ours update', (s) => s.manifestBytes);
  rows.push(['ours: artifact bytes per run (median)', String(bytes)]);
  rows.push(['ours: manifest bytes per run (median)', String(manifest)]);
  if (w.kind === 'changed')
    rows.push(['ours: artifact bytes / changed bytes', `${bytes / w.size}`]);
  const size = w.size >= MiB ? mib(w.size) : `${w.size / 1024} KiB`;
  printTable(`${name}: ${w.count} x ${size} (${w.kind}), ${ROUNDS} rounds`, rows);
  return {
    workload: name,
    ours_ms: Math.round(ours),
    ours_check_ms: samples.has('ours check') ? Math.round(med('ours check', (s) => s.ms)) : null,
    ours_peak_rss_mib: +(maxRss('ours update') / MiB).toFixed(1),
    ratios,
    cpu_ratios: cpuRatios,
    manifest_bytes: manifest,
    artifact_bytes: bytes,
  };
}

for (const name of selected) {
  const w = WORKLOADS[name];
  if (w === undefined)
    throw new Error(`unknown WORKLOAD ${name}: ${Object.keys(WORKLOADS).join(', ')}`);
  console.log(JSON.stringify(await runWorkload(name, w)));
}
