/**
 * Evidence for the chunking parameters of docs/PROTOCOL.md §2.6: for several average chunk
 * sizes, how fast the publisher's one pass runs (FastCDC + per-chunk SHA-256 + whole-file
 * SHA-256), and how many bytes a client holding the old version must fetch for the new one
 * (changed chunks, plus the index and the chunk list sections on the paths to them), on real
 * files and on the three edits of bench/updater-chunk-delta.ts.
 *
 *   npx tsx bench/chunk-params.ts [FILE ...]      (default: a tar of node_modules, the
 *                                                  Chromium binary, git archives of this repo)
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChunkIndexBuilder, type BuiltChunkIndex } from '../src/protocol/chunk-index-builder.js';
import {
  chunkEntries,
  DEFAULT_FANOUT_BITS,
  entryBytes,
  entryHash,
  entrySpan,
  nodeAt,
  type Section,
} from '../src/protocol/chunk-index.js';
import { FastCdc, type ChunkerParams } from '../src/protocol/fastcdc.js';
import { mib, mibPerS, printTable, REPO_ROOT } from './updater-kit.js';

const KiB = 1024;
const AVERAGES = (process.env.BENCH_AVG_KIB ?? '8,16,32,64').split(',').map((k) => Number(k) * KiB);
const FANOUT_BITS = Number(process.env.BENCH_FANOUT_BITS ?? String(DEFAULT_FANOUT_BITS));
const paramsFor = (avg: number): ChunkerParams => ({
  minSize: avg / 4,
  avgSize: avg,
  maxSize: avg * 4,
});

function build(data: Uint8Array, params: ChunkerParams): BuiltChunkIndex {
  const builder = new ChunkIndexBuilder(params, FANOUT_BITS);
  for (let at = 0; at < data.length; at += 1 << 20)
    builder.update(data.subarray(at, at + (1 << 20)));
  return builder.finish();
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** Keys of every chunk and node of a tree (what a client holding it can reuse). */
function keysOf(built: BuiltChunkIndex): Set<string> {
  const keys = new Set<string>();
  for (const level of built.levels) {
    for (let i = 0; i < level.count; i++) keys.add(`${level.level}:${hex(entryHash(level, i))}`);
  }
  return keys;
}

interface Cost {
  indexBytes: number;
  sectionBytes: number;
  chunkBytes: number;
  /** New chunks absent from the old version: the least any chunk-level delta must move. */
  changedChunkBytes: number;
}

/** Walks the new tree top-down as the client does, descending only into unknown nodes. */
function deltaCost(old: BuiltChunkIndex, next: BuiltChunkIndex): Cost {
  const known = keysOf(old);
  const cost: Cost = {
    indexBytes: next.indexBytes.length,
    sectionBytes: 0,
    chunkBytes: 0,
    changedChunkBytes: 0,
  };
  for (const chunk of chunkEntries(next.levels[0] as Section)) {
    if (!known.has(`0:${hex(chunk.sha256)}`)) cost.changedChunkBytes += chunk.length;
  }
  // Children of node j at level l: a contiguous run of level l-1 starting at firstChild.
  const firstChild = next.levels.map((level) => {
    let at = 0;
    return Array.from({ length: level.count }, (_x, j) => {
      const first = at;
      at += level.level === 0 ? 0 : nodeAt(level, j).childCount;
      return first;
    });
  });
  const visit = (level: number, j: number): void => {
    const section = next.levels[level] as Section;
    if (known.has(`${level}:${hex(entryHash(section, j))}`)) return;
    if (level === 0) {
      cost.chunkBytes += entrySpan(section, j);
      return;
    }
    const node = nodeAt(section, j);
    cost.sectionBytes += node.childCount * entryBytes(level - 1);
    const first = (firstChild[level] as number[])[j] as number;
    for (let k = 0; k < node.childCount; k++) visit(level - 1, first + k);
  };
  const top = next.levels.length - 1;
  for (let j = 0; j < (next.levels[top] as Section).count; j++) visit(top, j);
  return cost;
}

function edits(base: Uint8Array): [string, Uint8Array][] {
  const size = base.length;
  const a = Uint8Array.from(base);
  a.set(randomBytes(1 << 20), Math.floor(size * 0.4));
  const at = 1 << 20;
  const b = new Uint8Array(size + 64 * KiB);
  b.set(base.subarray(0, at), 0);
  b.set(randomBytes(64 * KiB), at);
  b.set(base.subarray(at), at + 64 * KiB);
  const c = Uint8Array.from(base);
  for (let i = 0; i < 20; i++) c.set(randomBytes(4 * KiB), Math.floor(((i + 0.5) * size) / 20));
  return [
    ['(a) 1 MiB changed in place', a],
    ['(b) 64 KiB inserted at 1 MiB', b],
    ['(c) 20 scattered 4 KiB edits', c],
  ];
}

function throughput(name: string, data: Uint8Array): void {
  const rows: [string, string][] = [];
  for (const avg of AVERAGES) {
    const params = paramsFor(avg);
    let started = performance.now();
    const cutter = new FastCdc(params);
    const cuts: number[] = [];
    for (let at = 0; at < data.length; at += 1 << 20)
      cutter.push(data.subarray(at, at + (1 << 20)), cuts);
    const cutMs = performance.now() - started;
    started = performance.now();
    const built = build(data, params);
    const buildMs = performance.now() - started;
    const chunks = (built.levels[0] as Section).count;
    rows.push([
      `avg ${avg / KiB} KiB`,
      `cut ${mibPerS(data.length, cutMs)}, one pass ${mibPerS(data.length, buildMs)}, ` +
        `${chunks} chunks (mean ${(data.length / chunks / KiB).toFixed(1)} KiB), ` +
        `index ${built.indexBytes.length} B, list ${mib(built.listBytes.length)}, ` +
        `${built.index.levels} levels`,
    ]);
  }
  printTable(`${name} (${mib(data.length)}): publisher pass`, rows);
}

function deltaTable(name: string, pairs: [string, Uint8Array, Uint8Array][]): void {
  const rows: [string, string][] = [];
  for (const [what, old, next] of pairs) {
    for (const avg of AVERAGES) {
      const params = paramsFor(avg);
      const cost = deltaCost(build(old, params), build(next, params));
      const moved = cost.indexBytes + cost.sectionBytes + cost.chunkBytes;
      rows.push([
        `${what}, avg ${avg / KiB} KiB`,
        `moved ${(moved / KiB).toFixed(0)} KiB = chunks ${(cost.chunkBytes / KiB).toFixed(0)} + ` +
          `sections ${(cost.sectionBytes / KiB).toFixed(1)} + index ${(cost.indexBytes / KiB).toFixed(1)}` +
          ` (${(moved / Math.max(1, cost.changedChunkBytes)).toFixed(3)}x changed chunks)`,
      ]);
    }
  }
  printTable(`${name}: bytes a client holding the old version moves`, rows);
}

async function gitVersions(): Promise<[string, Uint8Array, Uint8Array][]> {
  const dir = await mkdtemp(join(tmpdir(), 'chunk-params-'));
  try {
    // git archive stamps every member with the commit time, which would change every tar
    // header; re-tar the tree with a fixed time, as a release pipeline with stable mtimes does.
    const tarOf = (rev: string): Uint8Array => {
      const tree = join(dir, rev.replace(/\W/g, '_'));
      execFileSync('mkdir', ['-p', tree]);
      execFileSync('sh', ['-c', `git -C "${REPO_ROOT}" archive ${rev} | tar -x -C "${tree}"`]);
      const file = `${tree}.tar`;
      execFileSync('tar', [
        '--sort=name',
        '--mtime=@0',
        '--owner=0',
        '--group=0',
        '-cf',
        file,
        '-C',
        tree,
        '.',
      ]);
      return readFileSync(file);
    };
    const revs = ['HEAD~40', 'HEAD~20', 'HEAD~10', 'HEAD~5', 'HEAD'];
    const tars = revs.map(tarOf);
    const pairs: [string, Uint8Array, Uint8Array][] = [];
    for (let i = 0; i + 1 < revs.length; i++) {
      pairs.push([
        `git ${revs[i]} -> ${revs[i + 1]}`,
        tars[i] as Uint8Array,
        tars[i + 1] as Uint8Array,
      ]);
    }
    return pairs;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const files = process.argv.slice(2);
const defaults = ['/tmp/delta/real/node_modules.tar', '/usr/lib/chromium/chromium'].filter((f) =>
  existsSync(f),
);
for (const file of files.length > 0 ? files : defaults) {
  const data = readFileSync(file);
  throughput(file, data);
  deltaTable(
    file,
    edits(data).map(([what, next]) => [what, data, next]),
  );
}
deltaTable('this repository, real versions (git archive)', await gitVersions());
