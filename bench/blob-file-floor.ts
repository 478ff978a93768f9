/**
 * What the durable design's file calls cost by themselves on a fresh install of many small
 * artifacts (docs/UPDATER.md §8, item (10)): no network, no HTTP, no manifest. Two contenders,
 * interleaved in one process, each into a fresh directory per round (medians of ROUNDS):
 *
 * - `ours`: the real store (src/node/store/file-store.ts), as a pull and its commit drive it: each
 *   blob opened as a partial, written, completed (hashed, sealed, promoted behind a syncfs
 *   batch), then `settleBlobs` and `commitSet` (the staging links, the journal, the swap).
 * - `curl's files`: what `curl -Z -o` does per file, create, write and close into one directory,
 *   plus the SHA-256 that `openssl dgst` adds: no sync, no rename, no link.
 *
 * Run: `COUNT=10000 SIZE=4096 ROUNDS=7 npx tsx bench/blob-file-floor.ts`. TMPDIR picks the file
 * system: this machine's root is ext4 without a journal, where creating inodes right after
 * thousands were removed is slow for both contenders (the kernel skips recently deleted inodes
 * one by one). A loop-mounted ext4 with its default journal shows the journaled case, the
 * common one on desktops, though its writes and syncs then pass through the loop device and
 * the file under it as well.
 */
import { createHash, randomFillSync } from 'node:crypto';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EMPTY_STATE, type InstalledSet } from '#core/state.js';
import { FileStore } from '#node/store/file-store.js';
import { envInt, percentiles, printTable } from './updater-kit.js';

const COUNT = envInt('COUNT', 10_000);
const SIZE = envInt('SIZE', 4096);
const ROUNDS = envInt('ROUNDS', 7);

interface Blob {
  readonly name: string;
  readonly sha256: string;
  readonly bytes: Buffer;
}

interface Sample {
  readonly ms: number;
  /** CPU of this process (all its threads), ms: the `sync` children are not counted. */
  readonly cpuMs: number;
}

function makeBlobs(): Blob[] {
  const blobs: Blob[] = [];
  for (let i = 0; i < COUNT; i++) {
    const bytes = randomFillSync(Buffer.alloc(SIZE));
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    blobs.push({ name: `f${String(i).padStart(5, '0')}.bin`, sha256, bytes });
  }
  return blobs;
}

/** The set the store commits: built once, as a pull finds it in its plan. */
function installedSet(blobs: readonly Blob[]): InstalledSet {
  const artifacts = blobs.map((b) => ({ name: b.name, size: b.bytes.length, sha256: b.sha256 }));
  return { setId: 'a'.repeat(64), version: '1.0.0', artifacts };
}

async function ours(dir: string, blobs: readonly Blob[], set: InstalledSet): Promise<void> {
  const store = await FileStore.open(dir);
  for (const b of blobs) {
    const partial = await store.openPartial(b.sha256, b.bytes.length);
    await partial.write(b.bytes);
    await partial.complete();
  }
  await store.settleBlobs();
  await store.commitSet(
    { ...set, envelope: Buffer.from('{}') },
    { ...EMPTY_STATE, installed: set },
  );
}

function curlFiles(dir: string, blobs: readonly Blob[]): void {
  mkdirSync(dir);
  for (const b of blobs) {
    const fd = openSync(join(dir, b.name), 'w', 0o644);
    try {
      writeSync(fd, b.bytes);
    } finally {
      closeSync(fd);
    }
    createHash('sha256').update(b.bytes).digest('hex');
  }
}

async function timed(run: () => Promise<void> | void): Promise<Sample> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await run();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}

/** Median wall and CPU of a contender's samples. */
function medianOf(samples: readonly Sample[]): Sample {
  return {
    ms: percentiles(samples.map((x) => x.ms)).median,
    cpuMs: percentiles(samples.map((x) => x.cpuMs)).median,
  };
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'bench-blob-file-floor-'));
  try {
    const blobs = makeBlobs();
    const set = installedSet(blobs);
    const contenders = [
      {
        label: 'ours (store: partial, seal, promote, stage, commit)',
        run: (dir: string) => ours(dir, blobs, set),
        samples: [] as Sample[],
      },
      {
        label: "curl's files (create, write, close, sha256)",
        run: (dir: string) => curlFiles(dir, blobs),
        samples: [] as Sample[],
      },
    ];
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < contenders.length; k++) {
        const i = (k + round) % contenders.length;
        const contender = contenders[i] as (typeof contenders)[number];
        const dir = join(root, `run-${i}`);
        await rm(dir, { recursive: true, force: true });
        contender.samples.push(await timed(() => contender.run(dir)));
      }
    }
    const rows: [string, string][] = contenders.map((c) => {
      const m = medianOf(c.samples);
      const runs = c.samples.map((x) => x.ms.toFixed(0)).join(', ');
      return [c.label, `median ${m.ms.toFixed(0)} ms (runs ${runs}), CPU ${m.cpuMs.toFixed(0)} ms`];
    });
    const [a, b] = contenders.map((c) => medianOf(c.samples)) as [Sample, Sample];
    rows.push([
      'ratio ours / curl',
      `${(a.ms / b.ms).toFixed(3)}x (CPU ${(a.cpuMs / b.cpuMs).toFixed(3)}x)`,
    ]);
    printTable(`${COUNT} x ${SIZE} B, file calls only, ${ROUNDS} rounds (${root})`, rows);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();
