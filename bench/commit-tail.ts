/**
 * What a fresh install does after its last blob is settled (docs/UPDATER.md §11.2, The commit
 * after the last byte): `FileStore.commitSet` (blobs/ fsync, the staging tree finished, the
 * signed manifest, journal, swap, state, GC, facts) and the state read after it, for COUNT
 * blobs pulled into a set staged during the pull (`expectSet` first, as a run does). Each tree
 * of TREES (label=path of a checkout, its node_modules in place) is imported by path, so two
 * builds are timed in one process, interleaved, ROUNDS each; medians reported.
 *
 *   flock /tmp/bench.lock env TREES=base=/tmp/base,new=. COUNT=1000 ROUNDS=15 \
 *     npx tsx bench/commit-tail.ts
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { EMPTY_STATE, type InstalledSet } from '#core/state.js';
import type { FileStore } from '#node/store/file-store.js';
import { envInt, percentiles, printTable } from './updater-kit.js';

const COUNT = envInt('COUNT', 1000);
const SIZE = envInt('SIZE', 4096);
const ROUNDS = envInt('ROUNDS', 9);
const TREES = (process.env.TREES ?? `new=${process.cwd()}`).split(',').map((pair) => {
  const [label = '', path = ''] = pair.split('=');
  return { label, path: resolve(path) };
});

/** Times of the install steps after the commit began (ms), by step. */
type Steps = Map<string, number>;
type Open = (dir: string, steps: Steps, t0: { at: number }) => Promise<FileStore>;

async function storeOf(tree: string): Promise<Open> {
  const url = pathToFileURL(join(tree, 'src/node/store/file-store.ts')).href;
  type Opener = (dir: string, o: { onStep: (s: string) => void }) => Promise<FileStore>;
  const mod = (await import(url)) as { FileStore: { open: Opener } };
  return (dir, steps, t0) =>
    mod.FileStore.open(dir, { onStep: (s) => steps.set(s, performance.now() - t0.at) });
}

/** One install: COUNT blobs pulled into a staged set, then the timed commit and state read. */
async function once(open: Open): Promise<{ commitMs: number; readMs: number; steps: Steps }> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-commit-tail-'));
  const steps: Steps = new Map();
  const t0 = { at: 0 };
  try {
    const store = await open(dir, steps, t0);
    const contents = Array.from({ length: COUNT }, () => randomBytes(SIZE));
    const set: InstalledSet = {
      setId: createHash('sha256').update(randomBytes(32)).digest('hex'),
      version: '1.0.0',
      artifacts: contents.map((c, i) => ({
        name: `app/f${String(i).padStart(5, '0')}.bin`,
        size: c.length,
        sha256: createHash('sha256').update(c).digest('hex'),
      })),
    };
    const envelope = randomBytes(70 * 1024);
    // A base build's expectSet takes no envelope: the extra field is ignored there.
    await store.expectSet({ ...set, envelope });
    for (const [i, c] of contents.entries()) {
      const partial = await store.openPartial(set.artifacts[i]?.sha256 ?? '', c.length);
      await partial.write(c);
      await partial.complete();
    }
    await store.settleBlobs();
    steps.clear();
    t0.at = performance.now();
    await store.commitSet({ ...set, envelope }, { ...EMPTY_STATE, installed: set });
    const t1 = performance.now();
    await store.loadStateAndBytes();
    return { commitMs: t1 - t0.at, readMs: performance.now() - t1, steps };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const opens = await Promise.all(TREES.map(async (t) => ({ ...t, open: await storeOf(t.path) })));
const times = new Map(
  TREES.map((t) => [
    t.label,
    { commit: [] as number[], read: [] as number[], steps: [] as Steps[] },
  ]),
);
const loads: number[] = [];
// One warm-up install per tree (JIT, page cache), not counted.
for (const t of opens) await once(t.open);
for (let round = 0; round < ROUNDS; round++) {
  loads.push(loadavg()[0] ?? 0);
  for (const t of round % 2 === 0 ? opens : [...opens].reverse()) {
    const { commitMs, readMs, steps } = await once(t.open);
    times.get(t.label)?.commit.push(commitMs);
    times.get(t.label)?.read.push(readMs);
    times.get(t.label)?.steps.push(steps);
  }
}
const first = TREES[0]?.label ?? '';
const median = (xs: number[]): number => percentiles(xs).median;
const base = median(times.get(first)?.commit ?? []);
printTable(
  `commit after the last blob: ${COUNT} x ${SIZE} B, ${ROUNDS} rounds interleaved, ` +
    `load average ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`,
  [...times].map(([label, t]) => {
    const c = median(t.commit);
    return [
      label,
      `commit median ${c.toFixed(1)} ms (${(c / base).toFixed(2)}x ${first}; runs ` +
        `${[...t.commit]
          .sort((a, b) => a - b)
          .map((x) => x.toFixed(0))
          .join(', ')}), state read after it ${median(t.read).toFixed(2)} ms`,
    ];
  }),
);
for (const [label, t] of times) {
  const names = [...new Set(t.steps.flatMap((s) => [...s.keys()]))];
  const at = names.map((n) => `${n} ${median(t.steps.map((s) => s.get(n) ?? NaN)).toFixed(1)}`);
  console.log(`${label} steps, median ms after the commit began: ${at.join(', ')}`);
}
