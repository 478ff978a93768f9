/**
 * The two node clients of the peer benchmarks (bench/updater-peers.ts,
 * bench/network-peers.ts), bundled once per run into `work` so each runs under plain node as
 * it ships: ours is the CLI's launcher, tuf-js the client of bench/tuf-client.ts.
 */
import { join } from 'node:path';
import { build } from 'esbuild';
import { buildCli, launcherOf } from '../scripts/build-cli.mjs';
import { REPO_ROOT } from './updater-kit.js';

export interface PeerBundles {
  /** Our CLI's launcher (it sizes libuv's thread pool, scripts/build-cli.mjs). */
  readonly ours: string;
  readonly tuf: string;
}

export async function bundles(work: string): Promise<PeerBundles> {
  const ours = launcherOf(await buildCli({ outfile: join(work, 'updater-cli.mjs') }));
  const tuf = join(work, 'tuf-client.mjs');
  await build({
    entryPoints: [join(REPO_ROOT, 'bench/tuf-client.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: tuf,
    logLevel: 'error',
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
  });
  return { ours, tuf };
}
