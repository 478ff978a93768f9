/**
 * Signed chunk deltas (docs/PROTOCOL.md §2.6, docs/UPDATER.md §9) against zsync and casync, on
 * the same files, all served by one nginx on loopback whose access log ($bytes_sent, headers
 * included) counts what each client cost the server. A random 512 MiB artifact and three new
 * versions: (a) 1 MiB changed in place, (b) 64 KiB inserted near the start (at 1 MiB), (c) 20
 * edits of 4 KiB scattered through it. Per contender and case: bytes moved, wall and CPU time, peak
 * RSS (/usr/bin/time -v) of the client, medians over interleaved rounds (the order rotates).
 *
 * - ours: the bundled CLI (scripts/build-cli.mjs) run by plain node, updating a state directory
 *   that holds release 1 (installed by the CLI before the rounds, hard-linked afresh for each
 *   run: the whole install caches release 1's published chunk tree, as any install does) to
 *   the case's release. ours-cold: the same without that cached tree, so the delta reads the
 *   held 512 MiB once to learn its chunks (a client whose install could not fetch the tree). The companion server publishes every release with
 *   `artifact_base_url` on nginx and is then closed: its manifest answers are served by nginx
 *   too, so every byte of ours is counted at the same place as the peers'.
 * - zsync 0.6.2: `zsyncmake` of the new file; `zsync -i OLD -o OUT URL.zsync`.
 * - casync 2: `casync make --store=STORE new.caibx new.bin` (default chunking, zstd chunks);
 *   `casync extract --store=URL/STORE --seed=OLD URL/new.caibx OUT` (casync-http helper).
 *
 * "Changed chunks" are the chunks of the new version absent from the old one under our
 * publisher's chunking: the least any chunk-level delta with that chunking must move.
 * Targets (docs/UPDATER.md §9.2): ours <= 1.1x the changed chunks and no more than zsync or casync on any
 * case; wall time ahead of both; client peak RSS <= 100 MB.
 *
 * Not run in CI. Needs Debian's zsync, casync and nginx:
 *   apt-get update && apt-get install -y zsync casync nginx-light
 *   npx tsx bench/updater-chunk-delta.ts      (ROUNDS=3, BENCH_SIZE_MIB=512, CASES=a,b,c,
 *                                              CONTENDERS=ours,zsync,casync (ours-cold adds
 *                                              ours without release 1's cached tree),
 *                                              NODE_ARGS=, BENCH_LOG=1 prints our requests,
 *                                              WARMUP=1 runs each contender once,
 *                                              unmeasured, before the rounds,
 *                                              BASE_CLI=FILE adds ours-base: the same runs
 *                                              by another bundle, e.g. main's, in the same
 *                                              interleaved rounds,
 *                                              GZIP_JSON=0 turns off nginx's gzip of JSON)
 *
 * nginx gzips JSON as a stock set-up does (test/helpers/nginx.ts `gzipJson`: the manifest answer
 * is typed application/json), so a client that offers gzip for the manifest gets it coded
 * (docs/PROTOCOL.md §2.7.6, Content coding); the peers fetch no JSON.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { copyFile, link, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '#server/compose/start-server.js';
import { buildCli, launcherOf } from '../scripts/build-cli.mjs';
import { ChunkIndexBuilder, type BuiltChunkIndex } from '#protocol/chunk-index-builder.js';
import {
  chunkEntries,
  DEFAULT_CHUNKER_PARAMS,
  DEFAULT_TREE_LAYOUT,
  type Section,
} from '#protocol/chunk-index.js';
import { copyEntryBlobs } from '#test/chunk-delta-kit.js';
import { startNginx, type Nginx } from '#test/nginx.js';
import {
  envInt,
  mib,
  MiB,
  printTable,
  runMeasured,
  writeRandomFile,
  type ChildRun,
} from './updater-kit.js';

const KiB = 1024;
const SIZE = envInt('BENCH_SIZE_MIB', 512) * MiB;
const ROUNDS = envInt('ROUNDS', 3);
const CASES = (process.env.CASES ?? 'a,b,c').split(',');
const CONTENDERS = (process.env.CONTENDERS ?? 'ours,zsync,casync').split(',');
/** Extra node flags for our CLI, e.g. NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof'. */
const NODE_ARGS = (process.env.NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
/** BENCH_LOG=1: print each request of our runs (what the bytes over the changed chunks are). */
const BENCH_LOG = process.env.BENCH_LOG === '1';
/** WARMUP=1: one unmeasured run of each contender before the rounds. */
const WARMUP = process.env.WARMUP === '1';
/** Another build of our CLI (e.g. main's) run as ours-base beside ours, same state and rounds. */
const BASE_CLI = process.env.BASE_CLI;
const GZIP_JSON = process.env.GZIP_JSON !== '0';
const CASE_TITLES: Record<string, string> = {
  a: '(a) 1 MiB changed in place',
  b: '(b) 64 KiB inserted at 1 MiB',
  c: '(c) 20 edits of 4 KiB',
};

for (const tool of ['zsync', 'zsyncmake', 'casync']) {
  if (CONTENDERS.some((c) => tool.startsWith(c)) && !existsSync(`/usr/bin/${tool}`)) {
    throw new Error(
      `${tool} is missing: apt-get update && apt-get install -y zsync casync nginx-light`,
    );
  }
}

/** The new version of `base` for a case (random bytes where it changes). */
function edit(base: Buffer, name: string): Buffer {
  const size = base.length;
  if (name === 'a') {
    const out = Buffer.from(base);
    randomBytes(MiB).copy(out, Math.floor(size * 0.4));
    return out;
  }
  if (name === 'b') {
    return Buffer.concat([base.subarray(0, MiB), randomBytes(64 * KiB), base.subarray(MiB)]);
  }
  if (name === 'c') {
    const out = Buffer.from(base);
    for (let i = 0; i < 20; i++)
      randomBytes(4 * KiB).copy(out, Math.floor(((i + 0.5) * size) / 20));
    return out;
  }
  throw new Error(`unknown case ${name}: a, b or c`);
}

function chunkTree(data: Uint8Array): BuiltChunkIndex {
  const builder = new ChunkIndexBuilder(DEFAULT_CHUNKER_PARAMS, DEFAULT_TREE_LAYOUT);
  for (let at = 0; at < data.length; at += MiB) builder.update(data.subarray(at, at + MiB));
  return builder.finish();
}

/** Bytes of the new version's chunks that the old version does not hold. */
function changedChunkBytes(old: BuiltChunkIndex, next: BuiltChunkIndex): number {
  const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
  const held = new Set(chunkEntries(old.levels[0] as Section).map((c) => hex(c.sha256)));
  let bytes = 0;
  const counted = new Set<string>();
  for (const c of chunkEntries(next.levels[0] as Section)) {
    const key = hex(c.sha256);
    if (held.has(key) || counted.has(key)) continue;
    counted.add(key);
    bytes += c.length;
  }
  return bytes;
}

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

interface Case {
  readonly name: string;
  readonly file: string;
  readonly sha256: string;
  readonly changedChunks: number;
}

interface Sample {
  readonly ms: number;
  /** User + system CPU time of the client (ms): on a loaded machine, steadier than wall time. */
  readonly cpuMs: number;
  /** Of which system CPU time (ms): the kernel's share (copies, page cache, fsync). */
  readonly sysMs: number;
  readonly rss: number;
  /** $bytes_sent over the run: bodies and headers. */
  readonly bytes: number;
  readonly requests: number;
}

interface Contender {
  readonly label: string;
  readonly setup: (c: Case) => Promise<void>;
  readonly run: (c: Case) => Promise<ChildRun>;
  /** The file the run produced. */
  readonly output: (c: Case) => string;
}

const work = await mkdtemp(join(tmpdir(), 'bench-chunk-delta-'));
const www = join(work, 'www');
await mkdir(www, { recursive: true });
const nginx: Nginx = await startNginx(www, { gzipJson: GZIP_JSON });
try {
  console.error(`preparing ${mib(SIZE)} base and ${CASES.length} cases in ${work} ...`);
  const baseFile = join(work, 'base.bin');
  await writeRandomFile(baseFile, SIZE);
  const base = await readFile(baseFile);
  const baseTree = chunkTree(base);
  const cases: Case[] = [];
  for (const name of CASES) {
    const next = edit(base, name);
    const file = join(work, `new-${name}.bin`);
    await writeFile(file, next);
    cases.push({
      name,
      file,
      sha256: createHash('sha256').update(next).digest('hex'),
      changedChunks: changedChunkBytes(baseTree, chunkTree(next)),
    });
  }

  const contenders: Contender[] = [];
  if (CONTENDERS.includes('ours')) contenders.push(...(await prepareOurs(baseFile, cases)));
  if (CONTENDERS.includes('zsync')) contenders.push(await prepareZsync(baseFile, cases));
  if (CONTENDERS.includes('casync')) contenders.push(await prepareCasync(baseFile, cases));

  // The files just written go to disk now, not during the first runs (whose fsync would wait).
  execFileSync('sync');
  // WARMUP=1: one unmeasured run of each contender first (a diagnosis of slow first runs; it
  // did not remove the system CPU spikes of docs/UPDATER.md §9.2, which follow the machine's
  // load).
  if (WARMUP) {
    for (const who of contenders) await measure(who, cases[0] as Case);
  }
  const samples = new Map<string, Sample[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of cases) {
      for (let i = 0; i < contenders.length; i++) {
        const who = contenders[(i + round) % contenders.length] as Contender;
        const sample = await measure(who, c);
        const key = `${c.name}/${who.label}`;
        samples.set(key, [...(samples.get(key) ?? []), sample]);
        console.error(
          `round ${round + 1} ${key}: ${sample.ms.toFixed(0)} ms, CPU ${sample.cpuMs.toFixed(0)} ms ` +
            `(sys ${sample.sysMs.toFixed(0)}), ` +
            `${sample.bytes} B, ` +
            `${mib(sample.rss)}`,
        );
      }
    }
  }
  report(cases, contenders, samples);
} finally {
  await nginx.stop();
  await rm(work, { recursive: true, force: true });
}

async function measure(who: Contender, c: Case): Promise<Sample> {
  await who.setup(c);
  const before = (await nginx.accessLog()).length;
  const r = await who.run(c);
  if (r.code !== 0) throw new Error(`${who.label} ${c.name} failed: ${r.stdout} ${r.stderr}`);
  const log = (await nginx.accessLog()).slice(before);
  if (BENCH_LOG && who.label.startsWith('ours')) {
    for (const e of log) {
      const ranges = e.range === '' || e.range === '-' ? 0 : e.range.split(',').length;
      console.error(
        `  ${e.status} ${e.uri} ranges=${ranges} body=${e.bodyBytesSent} ` +
          `headers=${e.bytesSent - e.bodyBytesSent} coding=${e.contentEncoding || 'identity'}`,
      );
    }
  }
  // Checked after the clock stopped: every contender must have produced the exact new file.
  const got = await sha256File(who.output(c));
  if (got !== c.sha256) throw new Error(`${who.label} ${c.name}: wrong output ${got}`);
  const seconds = (label: string): number =>
    Number(new RegExp(`${label} time \\(seconds\\): ([\\d.]+)`).exec(r.stderr)?.[1] ?? NaN);
  return {
    ms: r.wallMs,
    cpuMs: (seconds('User') + seconds('System')) * 1000,
    sysMs: seconds('System') * 1000,
    rss: r.peakRssBytes ?? Number.NaN,
    bytes: log.reduce((n, e) => n + e.bytesSent, 0),
    requests: log.length,
  };
}

/** A fresh copy of `from` at `to`: hard links, except files written in place (the audit log). */
async function cloneState(from: string, to: string): Promise<void> {
  await rm(to, { recursive: true, force: true });
  execFileSync('cp', ['-al', from, to]);
  const audit = join(to, '.updater', 'audit.log');
  await rm(audit, { force: true });
  await copyFile(join(from, '.updater', 'audit.log'), audit);
}

async function prepareOurs(baseFile: string, cases: readonly Case[]): Promise<Contender[]> {
  // The launcher, as users run it (it sizes libuv's thread pool, scripts/build-cli.mjs).
  const cli = launcherOf(await buildCli({ outfile: join(work, 'cli', 'updater.mjs') }));
  const server = await startServer({ simulate: false });
  const blobs = join(www, 'ours', 'blobs');
  let pubkey: string;
  const publish = async (version: string, path: string, dir: string): Promise<void> => {
    const result = await server.publish({
      registry_version: version,
      artifacts: [{ name: 'app.bin', path }],
      artifact_base_url: `${nginx.baseUrl}/ours/blobs`,
    });
    for (const entry of result.artifacts) await copyEntryBlobs(server.dataDir, entry, blobs);
    // The answer a client gets now, served by nginx from here on (the bearer is not checked).
    const { machine_key } = await server.updates.mintMachineKey();
    const answer = await fetch(`${server.url}/api/updates/manifest`, {
      headers: { authorization: `Bearer ${machine_key}` },
    });
    if (answer.status !== 200) throw new Error(`manifest: ${answer.status}`);
    const path2 = join(www, 'ours', dir, 'api', 'updates', 'manifest');
    await mkdir(join(path2, '..'), { recursive: true });
    await writeFile(path2, Buffer.from(await answer.arrayBuffer()));
  };
  try {
    pubkey = server.nodePubkey;
    await publish('1.0.0', baseFile, 'v1');
    for (const [i, c] of cases.entries()) await publish(`2.0.${i}`, c.file, c.name);
  } finally {
    await server.close();
  }
  // BENCH_WRAP='strace -f -c -o FILE': our CLI under a tracer (diagnosis only: it is measured).
  const wrap = (process.env.BENCH_WRAP ?? '').split(' ').filter((a) => a !== '');
  const run = (dir: string, release: string, bundle = cli): Promise<ChildRun> =>
    runMeasured(
      wrap[0] ?? process.execPath,
      [
        ...wrap.slice(1),
        ...(wrap.length > 0 ? [process.execPath] : []),
        ...NODE_ARGS,
        ...[bundle, 'update', '--base-url', `${nginx.baseUrl}/ours/${release}/`],
        ...['--pubkey', pubkey, '--dir', dir, '--json'],
      ],
      { env: { UPDATER_MACHINE_KEY: 'bench' } },
    );
  const template = join(work, 'ours-v1');
  const installed = await run(template, 'v1');
  if (installed.code !== 0) throw new Error(`ours: install of v1 failed: ${installed.stderr}`);
  const dir = join(work, 'ours-run');
  const ours: Contender = {
    label: 'ours',
    setup: () => cloneState(template, dir),
    run: (c) => run(dir, c.name),
    output: () => join(dir, 'current', 'app.bin'),
  };
  const all = [ours];
  if (BASE_CLI !== undefined) {
    all.push({ ...ours, label: 'ours-base', run: (c) => run(dir, c.name, BASE_CLI) });
  }
  if (!CONTENDERS.includes('ours-cold')) return all;
  // Release 1 without its cached chunk tree (as a client older than the install-time tree,
  // or one whose tree fetch failed, leaves it): the delta reads the held blob to learn it.
  const coldTemplate = join(work, 'ours-v1-cold');
  await cloneState(template, coldTemplate);
  await rm(join(coldTemplate, '.updater', 'chunks'), { recursive: true, force: true });
  return [...all, { ...ours, label: 'ours-cold', setup: () => cloneState(coldTemplate, dir) }];
}

async function prepareZsync(baseFile: string, cases: readonly Case[]): Promise<Contender> {
  const served = join(www, 'zsync');
  await mkdir(served, { recursive: true });
  for (const c of cases) {
    const name = `new-${c.name}.bin`;
    await link(c.file, join(served, name));
    execFileSync('zsyncmake', ['-u', name, '-o', `${name}.zsync`, name], { cwd: served });
  }
  const out = join(work, 'zsync-out');
  return {
    label: 'zsync',
    setup: async () => {
      await rm(out, { recursive: true, force: true });
      await mkdir(out);
    },
    run: (c) =>
      runMeasured('zsync', [
        ...['-q', '-i', baseFile, '-o', join(out, 'new.bin')],
        `${nginx.baseUrl}/zsync/new-${c.name}.bin.zsync`,
      ]),
    output: () => join(out, 'new.bin'),
  };
}

async function prepareCasync(baseFile: string, cases: readonly Case[]): Promise<Contender> {
  const served = join(www, 'casync');
  await mkdir(served, { recursive: true });
  for (const c of cases) {
    execFileSync('casync', [
      'make',
      `--store=${join(served, 'store')}`,
      join(served, `new-${c.name}.caibx`),
      c.file,
    ]);
  }
  const out = join(work, 'casync-out');
  return {
    label: 'casync',
    setup: async () => {
      await rm(out, { recursive: true, force: true });
      await mkdir(out);
    },
    run: (c) =>
      runMeasured('casync', [
        'extract',
        `--store=${nginx.baseUrl}/casync/store`,
        `--seed=${baseFile}`,
        `${nginx.baseUrl}/casync/new-${c.name}.caibx`,
        join(out, 'new.bin'),
      ]),
    output: () => join(out, 'new.bin'),
  };
}

function report(
  cases: readonly Case[],
  contenders: readonly Contender[],
  samples: ReadonlyMap<string, readonly Sample[]>,
): void {
  // The true median (two rounds: their mean), not the kit's upper one.
  const med = (key: string, pick: (s: Sample) => number): number => {
    const sorted = (samples.get(key) ?? []).map(pick).sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1
      ? (sorted[mid] as number)
      : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  };
  const peak = (key: string): number => Math.max(...(samples.get(key) ?? []).map((s) => s.rss));
  const summary: Record<string, unknown>[] = [];
  for (const c of cases) {
    const rows: [string, string][] = [
      [
        'changed chunks (our chunking)',
        `${c.changedChunks} B (${(c.changedChunks / KiB).toFixed(1)} KiB)`,
      ],
    ];
    for (const who of contenders) {
      const key = `${c.name}/${who.label}`;
      const bytes = med(key, (s) => s.bytes);
      const runs = (samples.get(key) ?? []).map((s) => s.ms.toFixed(0)).join(', ');
      rows.push([
        who.label,
        `moved ${bytes} B (${(bytes / c.changedChunks).toFixed(3)}x changed chunks, ` +
          `${med(key, (s) => s.requests)} requests), median ${med(key, (s) => s.ms).toFixed(0)} ms ` +
          `(runs ${runs}), CPU ${med(key, (s) => s.cpuMs).toFixed(0)} ms, ` +
          `peak RSS ${mib(peak(key))}`,
      ]);
      summary.push({
        case: c.name,
        contender: who.label,
        bytes_moved: bytes,
        changed_chunk_bytes: c.changedChunks,
        ratio_to_changed_chunks: +(bytes / c.changedChunks).toFixed(3),
        median_ms: Math.round(med(key, (s) => s.ms)),
        median_cpu_ms: Math.round(med(key, (s) => s.cpuMs)),
        peak_rss_mib: +(peak(key) / MiB).toFixed(1),
      });
    }
    for (const mine of contenders.filter((w) => w.label.startsWith('ours'))) {
      const ours = `${c.name}/${mine.label}`;
      for (const who of contenders) {
        if (who.label.startsWith('ours')) continue;
        const key = `${c.name}/${who.label}`;
        rows.push([
          `${mine.label} / ${who.label}`,
          `bytes ${(med(ours, (s) => s.bytes) / med(key, (s) => s.bytes)).toFixed(3)}x, ` +
            `time ${(med(ours, (s) => s.ms) / med(key, (s) => s.ms)).toFixed(3)}x, ` +
            `CPU ${(med(ours, (s) => s.cpuMs) / med(key, (s) => s.cpuMs)).toFixed(3)}x`,
        ]);
      }
    }
    printTable(`${CASE_TITLES[c.name] ?? c.name}, ${mib(SIZE)}, ${ROUNDS} rounds`, rows);
  }
  console.log(JSON.stringify(summary));
}
