/**
 * Two (or more) builds of the CLI bundle against each other on one fixture, interleaved, so a
 * change is judged as a ratio within one run (the machine is noisy): the no-op `update` and
 * `check` at 10,000 installed (MODE=noop) or a fresh install of 10,000 x 4 KiB (MODE=fresh,
 * peak RSS). Build each side first, e.g. `node scripts/build-cli.mjs --out /tmp/main.mjs` in
 * each tree.
 *
 *   BUNDLES=main=/tmp/main.mjs,new=/tmp/new.mjs MODE=noop ROUNDS=5 npx tsx bench/noop-ab.ts
 *   (COUNT=10000, SIZE=4096; `label=path+--node-flag+...` runs that bundle under node flags;
 *   GZIP_JSON=0 turns off nginx's gzip of the JSON manifest answer, test/helpers/nginx.ts)
 *
 * MODE=noop also times `node -e 0` in the same rounds, the floor no bundle goes under. Node
 * reads and parses the file NODE_EXTRA_CA_CERTS names at every start, before any of our code
 * (about 70 ms with a full CA bundle on the shared machine): the floor row shows it, and the
 * bench says so when it is set (unset it for figures comparable with a user's machine).
 */
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNginx } from '#test/nginx.js';
import { buildFixture } from './peers-fixture.js';
import { envInt, mib, percentiles, printTable, runMeasured, type ChildRun } from './updater-kit.js';

const ROUNDS = envInt('ROUNDS', 5);
const COUNT = envInt('COUNT', 10_000);
const SIZE = envInt('SIZE', 4096);
const MODE = process.env.MODE ?? 'noop';
/**
 * MODE=fresh moves the previous install aside and syncs, instead of removing it just before the
 * next one (why: bench/updater-peers.ts `RM_BETWEEN_ROUNDS`); RM_BETWEEN_ROUNDS=1 removes it,
 * as before.
 */
const RM_BETWEEN_ROUNDS = process.env.RM_BETWEEN_ROUNDS === '1';
const bundles = (process.env.BUNDLES ?? '').split(',').map((pair) => {
  const [label, spec] = pair.split(/=(.*)/s);
  const [path, ...nodeArgs] = (spec ?? '').split('+');
  if (label === undefined || path === undefined || path === '') {
    throw new Error('BUNDLES=label=path[+node-flag...],...');
  }
  return { label, path, nodeArgs };
});

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'bench-noop-ab-'));
  const nginx = await startNginx(join(work, 'www'), { gzipJson: process.env.GZIP_JSON !== '0' });
  try {
    const fx = await buildFixture(join(work, 'www'), nginx.baseUrl, COUNT, SIZE, false);
    const cli = (
      b: { path: string; nodeArgs: string[] },
      command: string,
      dir: string,
    ): Promise<ChildRun> =>
      runMeasured(
        process.execPath,
        [
          ...b.nodeArgs,
          ...[b.path, command, '--base-url', `${nginx.baseUrl}/v1`],
          ...['--pubkey', fx.pubkeyHex, '--dir', dir, '--json'],
          ...['--max-artifact-bytes', String(Math.max(SIZE, 1024))],
        ],
        { env: { UPDATER_MACHINE_KEY: 'bench' } },
      );
    const ok = (label: string, r: ChildRun): ChildRun => {
      if (r.code !== 0) throw new Error(`${label} failed: ${r.stdout} ${r.stderr.slice(-2000)}`);
      return r;
    };
    const runs: { label: string; run: () => Promise<ChildRun> }[] = [];
    let aside = 0;
    const clear = (dir: string): Promise<void> =>
      RM_BETWEEN_ROUNDS
        ? rm(dir, { recursive: true, force: true })
        : rename(dir, join(work, `aside-${aside++}`))
            .catch((error: unknown) => {
              if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
            })
            .then(async () => {
              await runMeasured('sync', ['-f', work]);
            });
    for (const b of bundles) {
      const dir = join(work, `ours-${b.label}`);
      if (MODE === 'noop') {
        ok(`${b.label} install`, await cli(b, 'update', dir));
        runs.push({ label: `${b.label} update`, run: () => cli(b, 'update', dir) });
        runs.push({ label: `${b.label} check`, run: () => cli(b, 'check', dir) });
      } else {
        runs.push({
          label: `${b.label} fresh`,
          run: async () => {
            await clear(dir);
            return cli(b, 'update', dir);
          },
        });
      }
    }
    if (MODE === 'noop') {
      runs.push({
        label: 'floor node -e 0',
        run: () => runMeasured(process.execPath, ['-e', '0']),
      });
    }
    const samples = new Map<string, ChildRun[]>(runs.map((r) => [r.label, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < runs.length; i++) {
        const c = runs[(i + round) % runs.length];
        if (c !== undefined) samples.get(c.label)?.push(ok(c.label, await c.run()));
      }
    }
    const rows: [string, string][] = [];
    const medians = new Map<string, number>();
    const cpus = new Map<string, number>();
    for (const [label, list] of samples) {
      const ms = percentiles(list.map((s) => s.wallMs)).median;
      const cpu = percentiles(list.map((s) => s.cpuS ?? Number.NaN)).median;
      const rss = percentiles(list.map((s) => s.peakRssBytes ?? Number.NaN)).median;
      const maxRss = Math.max(...list.map((s) => s.peakRssBytes ?? Number.NaN));
      medians.set(label, ms);
      cpus.set(label, cpu);
      const each = list.map((s) => s.wallMs.toFixed(0)).join(', ');
      rows.push([
        label,
        `median ${ms.toFixed(0)} ms (runs ${each})  CPU ${cpu.toFixed(2)} s  RSS median ${mib(rss)} max ${mib(maxRss)}`,
      ]);
    }
    const first = bundles[0]?.label ?? '';
    for (const b of bundles.slice(1)) {
      for (const what of MODE === 'noop' ? ['update', 'check'] : ['fresh']) {
        const of = (m: Map<string, number>): string =>
          ((m.get(`${b.label} ${what}`) ?? 0) / (m.get(`${first} ${what}`) ?? 1)).toFixed(3);
        rows.push([`ratio ${b.label} / ${first} ${what}`, `${of(medians)}x (CPU ${of(cpus)}x)`]);
      }
    }
    const extraCa = process.env['NODE_EXTRA_CA_CERTS'];
    if (extraCa !== undefined && extraCa !== '') {
      rows.push(['note', `NODE_EXTRA_CA_CERTS=${extraCa}: every node start (floor too) reads it`]);
    }
    printTable(`${MODE}: ${COUNT} x ${SIZE} B, ${ROUNDS} rounds`, rows);
  } finally {
    await nginx.stop();
    await rm(work, { recursive: true, force: true });
  }
}

await main();
