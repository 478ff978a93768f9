/**
 * Staging a set of many small artifacts (src/node/store/set-staging.ts, docs/UPDATER.md §8): the
 * time of `stageSet` for COUNT blobs whose facts are recorded, against the floor of the same
 * number of bare `linkSync` calls into one fresh directory, interleaved in one process
 * (medians of ROUNDS). Run: `COUNT=10000 ROUNDS=7 npx tsx bench/set-staging.ts`.
 */
import { linkSync, mkdirSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import type { InstalledArtifact } from '#core/state.js';
import { recordBlobFacts } from '#node/blobs/blob-facts.js';
import { openPartialBlob } from '#node/blobs/partial-open.js';
import { stageSet } from '#node/store/set-staging.js';
import { envInt, percentiles, printTable } from './updater-kit.js';

const COUNT = envInt('COUNT', 10_000);
const ROUNDS = envInt('ROUNDS', 7);

async function main(): Promise<void> {
  const meta = await mkdtemp(join(tmpdir(), 'bench-set-staging-'));
  try {
    const blobs = join(meta, 'blobs');
    const partialDir = join(meta, 'partial');
    const sets = join(meta, 'sets');
    for (const d of [blobs, partialDir, sets]) await mkdir(d);
    const artifacts: InstalledArtifact[] = [];
    for (let i = 0; i < COUNT; i++) {
      const bytes = Buffer.from(`artifact ${i}\n`);
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      const partial = await openPartialBlob({ blobDir: blobs, partialDir }, sha256, bytes.length);
      await partial.write(bytes);
      await partial.complete();
      artifacts.push({
        name: `app/f${String(i).padStart(5, '0')}.bin`,
        size: bytes.length,
        sha256,
      });
    }
    const notLive = { live: (): Promise<string | null> => Promise.resolve(null) };
    const staged: number[] = [];
    const floor: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await rm(join(sets, 'set'), { recursive: true, force: true });
      rmSync(join(meta, 'bare'), { recursive: true, force: true });
      // Unlinking moved every blob's ctime; a commit's keepBlobFacts re-records them likewise.
      for (const a of artifacts) await recordBlobFacts(blobs, a.sha256);
      let t = performance.now();
      await stageSet({ sets, blobs }, notLive, 'set', artifacts);
      staged.push(performance.now() - t);
      const bare = join(meta, 'bare');
      mkdirSync(join(bare, 'app'), { recursive: true });
      t = performance.now();
      for (const a of artifacts) linkSync(join(blobs, a.sha256), join(bare, a.name));
      floor.push(performance.now() - t);
    }
    const s = percentiles(staged).median;
    const f = percentiles(floor).median;
    printTable(`stageSet: ${COUNT} artifacts, ${ROUNDS} rounds`, [
      [
        'stageSet',
        `median ${s.toFixed(0)} ms (runs ${staged.map((x) => x.toFixed(0)).join(', ')})`,
      ],
      ['bare linkSync floor', `median ${f.toFixed(0)} ms`],
      ['ratio stageSet / floor', `${(s / f).toFixed(2)}x`],
    ]);
  } finally {
    await rm(meta, { recursive: true, force: true });
  }
}

await main();
