/**
 * Mint throughput with 100,000 machines already stored (docs/SERVER.md §Data directory). Run:
 *   npx tsx bench/mint-at-scale.ts [machines, default 100000] [mints, default 2000]
 * Seeds the machines in machines.json (the snapshot format every earlier release wrote, so this
 * also times the migration's load), then mints through MachineKeys as the route does, 16 at a
 * time, and reports mints per second and the bytes written per mint. Before the journal each
 * mint rewrote machines.json whole (4.6 MB at 16,000 machines).
 */
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServerClock } from '#server/platform/clock.js';
import { createRandom } from '#server/platform/random.js';
import { MachineKeys, type MachineRecord } from '#server/updates/machine-keys.js';

const MACHINES = Number(process.argv[2] ?? 100_000) - Number(process.argv[3] ?? 2000);
const MINTS = Number(process.argv[3] ?? 2000);

const dir = await mkdtemp(join(tmpdir(), 'mint-at-scale-'));
const machines: MachineRecord[] = Array.from({ length: MACHINES }, (_, i) => ({
  machine_id: `m_seed${i}`,
  key_sha256: i.toString(16).padStart(64, '0'),
  label: null,
  created_at: '2026-01-01T00:00:00.000Z',
  status: 'active',
  expires_at: '2027-01-01T00:00:00.000Z',
}));
await writeFile(join(dir, 'machines.json'), JSON.stringify({ version: 1, machines }));
const keys = new MachineKeys(dir, new ServerClock(), createRandom(undefined));
let t = performance.now();
await keys.load();
const loadMs = performance.now() - t;
t = performance.now();
for (let done = 0; done < MINTS; done += 16) {
  await Promise.all(
    Array.from({ length: Math.min(16, MINTS - done) }, () => keys.mint('active', null)),
  );
}
const mintS = (performance.now() - t) / 1000;
const journal = await stat(join(dir, 'machines.journal')).then(
  (s) => s.size,
  () => 0,
);
console.log(
  JSON.stringify({
    machines_at_start: MACHINES,
    mints: MINTS,
    load_ms: Math.round(loadMs),
    mints_per_s: Math.round(MINTS / mintS),
    journal_bytes_per_mint: Math.round(journal / MINTS),
    machines_at_end: keys.size,
  }),
);
await rm(dir, { recursive: true, force: true });
