/**
 * Serves one peers fixture (bench/peers-fixture.ts) from nginx on loopback until killed, for
 * profiling one CLI run by hand (`--cpu-prof`, `strace`, `perf`) without a bench around it.
 * Writes the CLI's arguments to OUT as JSON: `base` (for --base-url), `pubkey`, `size`.
 *
 *   OUT=/tmp/fx64.json COUNT=1000 SIZE=65536 npx tsx bench/fixture-serve.ts &
 *   UPDATER_MACHINE_KEY=bench node dist/cli/updater.cjs update --base-url "$(jq -r .base
 *     /tmp/fx64.json)" --pubkey "$(jq -r .pubkey /tmp/fx64.json)" --dir /tmp/runs/1 --json
 *
 * (`--base-url …/v1/plain`: the same release without packs.) CHANGES=12 also publishes release
 * 2 with that many files changed, at `base2` (`…/v2`): install from `base`, then update from
 * `base2`, to look at an update of a few files among many.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNginx } from '#test/nginx.js';
import { buildFixture } from './peers-fixture.js';
import { envInt } from './updater-kit.js';

const count = envInt('COUNT', 1000);
const size = envInt('SIZE', 64 * 1024);
const out = process.env.OUT ?? join(tmpdir(), 'fixture-serve.json');
const work = await mkdtemp(join(tmpdir(), 'fixture-serve-'));
const nginx = await startNginx(join(work, 'www'), { gzipJson: process.env.GZIP_JSON !== '0' });
const changes = envInt('CHANGES', 0);
const fx = await buildFixture(join(work, 'www'), nginx.baseUrl, count, size, changes > 0, changes);
const base2 = changes > 0 ? { base2: `${nginx.baseUrl}/v2` } : {};
await writeFile(
  out,
  JSON.stringify({ base: `${nginx.baseUrl}/v1`, ...base2, pubkey: fx.pubkeyHex, size }),
);
console.log(`serving ${count} x ${size} B at ${nginx.baseUrl}/v1 (arguments in ${out})`);
const stop = (): void => {
  void nginx
    .stop()
    .then(() => rm(work, { recursive: true, force: true }))
    .finally(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
setInterval(() => undefined, 1 << 30);
