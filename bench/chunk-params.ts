/**
 * Evidence for the chunking parameters of docs/PROTOCOL.md §2.6: for several average chunk
 * sizes, how fast the publisher's one pass runs (FastCDC + per-chunk SHA-256 + whole-file
 * SHA-256), and how many bytes a client holding the old version must fetch for the new one
 * (changed chunks, plus the index and the chunk list sections on the paths to them), on real
 * files and on the three edits of bench/updater-chunk-delta.ts.
 *
 *   npx tsx bench/chunk-params.ts [FILE ...]      (default: a tar of node_modules, the
 *                                                  Chromium binary, git archives of this repo)
 *
 * BENCH_LAYOUTS picks the tree layouts compared (docs/PROTOCOL.md §2.6), comma-separated:
 * `1:B` is format 1 with fan-out bits B, `2:B:MIN:MAX` format 2 with sections closing on B zero
 * bits once they hold MIN entries, or at MAX (default `1:3,2:2:6:32`). BENCH_RANDOM_MIB=512
 * adds a random file of that size (the artifact of bench/updater-chunk-delta.ts); the section
 * columns then give the bytes per edit with one multipart part header (123 bytes) per section.
 * BENCH_AVG_KIB (default 8,16,32,64) the averages; BENCH_GIT=0 skips the git releases.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildChunkTree,
  ChunkIndexBuilder,
  type BuiltChunkIndex,
} from '#protocol/chunk-index-builder.js';
import {
  chunkEntries,
  entryHash,
  entrySpan,
  format1Layout,
  nodeAt,
  treeLayoutProblem,
  type Section,
  type TreeLayout,
} from '#protocol/chunk-index.js';
import { FastCdc, type ChunkerParams } from '#protocol/fastcdc.js';
import { mib, mibPerS, printTable, REPO_ROOT } from './updater-kit.js';

const KiB = 1024;
const AVERAGES = (process.env.BENCH_AVG_KIB ?? '8,16,32,64').split(',').map((k) => Number(k) * KiB);
/** `1:B` or `2:B:MIN:MAX` (see the header comment). */
function parseLayout(text: string): TreeLayout {
  const [format, bits, min, max] = text.split(':').map(Number);
  const layout: TreeLayout =
    format === 1
      ? format1Layout(bits ?? 3)
      : { format: 2, fanoutBits: bits ?? 2, sectionMin: min ?? 6, sectionMax: max ?? 32 };
  const problem = treeLayoutProblem(layout);
  if (problem !== undefined) throw new Error(`${text}: ${problem}`);
  return layout;
}
const LAYOUTS = (process.env.BENCH_LAYOUTS ?? '1:3,2:2:6:32').split(',').map(parseLayout);
const layoutName = (l: TreeLayout): string =>
  l.format === 1 ? `f1 b${l.fanoutBits}` : `f2 b${l.fanoutBits} ${l.sectionMin}-${l.sectionMax}`;
/** Multipart part header per section fetched (docs/PROTOCOL.md §2.6, the companion server). */
const PART_HEADER_BYTES = 123;
const paramsFor = (avg: number): ChunkerParams => ({
  minSize: avg / 4,
  avgSize: avg,
  maxSize: avg * 4,
});

/** Level 0 per file and average: a layout sweep regroups it instead of cutting again. */
const cut = new WeakMap<Uint8Array, Map<number, BuiltChunkIndex>>();

function build(
  data: Uint8Array,
  params: ChunkerParams,
  layout: TreeLayout = LAYOUTS[0] as TreeLayout,
): BuiltChunkIndex {
  const byAvg = cut.get(data) ?? new Map<number, BuiltChunkIndex>();
  cut.set(data, byAvg);
  let built = byAvg.get(params.avgSize);
  if (built === undefined) {
    const builder = new ChunkIndexBuilder(params, layout);
    for (let at = 0; at < data.length; at += 1 << 20)
      builder.update(data.subarray(at, at + (1 << 20)));
    built = builder.finish();
    byAvg.set(params.avgSize, built);
  }
  const { index } = built;
  return buildChunkTree(
    built.levels[0] as Section,
    index.artifactSize,
    index.artifactSha256,
    params,
    layout,
  );
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
  sections: number;
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
    sections: 0,
    chunkBytes: 0,
    changedChunkBytes: 0,
  };
  for (const chunk of chunkEntries(next.levels[0] as Section)) {
    if (!known.has(`0:${hex(chunk.sha256)}`)) cost.changedChunkBytes += chunk.length;
  }
  // Children of node j at level l: the run of level l-1 its span covers (firstChild[j] on).
  const firstChild = next.levels.map((level) => {
    if (level.level === 0) return [];
    const below = next.levels[level.level - 1] as Section;
    let child = 0;
    const firsts: number[] = [];
    for (let j = 0; j < level.count; j++) {
      firsts.push(child);
      let span = entrySpan(level, j);
      while (span > 0) span -= entrySpan(below, child++);
    }
    firsts.push(child);
    return firsts;
  });
  const visit = (level: number, j: number): void => {
    const section = next.levels[level] as Section;
    if (known.has(`${level}:${hex(entryHash(section, j))}`)) return;
    if (level === 0) {
      cost.chunkBytes += entrySpan(section, j);
      return;
    }
    cost.sectionBytes += nodeAt(section, j).sectionBytes;
    cost.sections++;
    const firsts = firstChild[level] as number[];
    for (let k = firsts[j] as number; k < (firsts[j + 1] as number); k++) visit(level - 1, k);
  };
  const top = next.levels.length - 1;
  for (let j = 0; j < (next.levels[top] as Section).count; j++) visit(top, j);
  return cost;
}

function edits(base: Uint8Array): [string, Uint8Array, number][] {
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
    ['(a) 1 MiB changed in place', a, 1],
    ['(b) 64 KiB inserted at 1 MiB', b, 1],
    ['(c) 20 scattered 4 KiB edits', c, 20],
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

/** Old and new version of one case, and how many separate edits it makes (for per-edit). */
type Pair = [what: string, old: Uint8Array, next: Uint8Array, edits: number];

function deltaTable(name: string, pairs: readonly Pair[]): void {
  const rows: [string, string][] = [];
  for (const [what, old, next, edits] of pairs) {
    for (const avg of AVERAGES) {
      const params = paramsFor(avg);
      for (const layout of LAYOUTS) {
        const cost = deltaCost(build(old, params, layout), build(next, params, layout));
        const moved = cost.indexBytes + cost.sectionBytes + cost.chunkBytes;
        const withHeaders = moved + cost.sections * PART_HEADER_BYTES;
        const perEdit = (cost.sectionBytes + cost.sections * PART_HEADER_BYTES) / edits;
        rows.push([
          `${what}, avg ${avg / KiB} KiB, ${layoutName(layout)}`,
          `moved ${(moved / KiB).toFixed(0)} KiB = chunks ${(cost.chunkBytes / KiB).toFixed(0)} + ` +
            `sections ${(cost.sectionBytes / KiB).toFixed(1)} (${cost.sections}) + index ` +
            `${(cost.indexBytes / KiB).toFixed(1)} (${(moved / Math.max(1, cost.changedChunkBytes)).toFixed(3)}x` +
            ` changed chunks; with part headers ${(withHeaders / Math.max(1, cost.changedChunkBytes)).toFixed(3)}x,` +
            ` sections ${perEdit.toFixed(0)} B per edit)`,
        ]);
      }
    }
  }
  printTable(`${name}: bytes a client holding the old version moves`, rows);
}

async function gitVersions(): Promise<Pair[]> {
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
    const pairs: Pair[] = [];
    for (let i = 0; i + 1 < revs.length; i++) {
      pairs.push([
        `git ${revs[i]} -> ${revs[i + 1]}`,
        tars[i] as Uint8Array,
        tars[i + 1] as Uint8Array,
        1,
      ]);
    }
    return pairs;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A random file of `mib` MiB (incompressible, like the bench's artifact). */
function randomFile(mib: number): Uint8Array {
  const out = new Uint8Array(mib * 1024 * KiB);
  for (let at = 0; at < out.length; at += 1 << 20) out.set(randomBytes(1 << 20), at);
  return out;
}

const files = process.argv.slice(2);
const randomMib = Number(process.env.BENCH_RANDOM_MIB ?? '0');
const defaults = ['/tmp/delta/real/node_modules.tar', '/usr/lib/chromium/chromium'].filter((f) =>
  existsSync(f),
);
for (const file of files.length > 0 || randomMib > 0 ? files : defaults) {
  const data = readFileSync(file);
  throughput(file, data);
  deltaTable(
    file,
    edits(data).map(([what, next, count]) => [what, data, next, count]),
  );
}
if (randomMib > 0) {
  const data = randomFile(randomMib);
  // One case at a time: the old and one new version of a 512 MiB file are all that is held.
  for (const [what, next, count] of edits(data)) {
    deltaTable(`random ${randomMib} MiB`, [[what, data, next, count]]);
  }
}
if (process.env.BENCH_GIT !== '0') {
  deltaTable('this repository, real versions (git archive)', await gitVersions());
}
