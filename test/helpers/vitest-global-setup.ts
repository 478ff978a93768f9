/**
 * vitest's global set-up (vitest.config.ts): bundles the updater and server command lines once
 * for the whole run (see test/helpers/built-clis.ts) into a fresh folder under the repository's
 * .cache/ (inside the repository, so the server bundle's imports of fastify and pino resolve to
 * node_modules), and removes it when the run ends.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';
import { buildCli, launcherOf } from '#scripts/build-cli.mjs';

const REPO_ROOT = resolve(import.meta.dirname, '../..');
const SERVER_CLI_SOURCE = join(REPO_ROOT, 'server/src/cli/main.ts');

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const parent = join(REPO_ROOT, '.cache');
  await mkdir(parent, { recursive: true });
  const dir = await mkdtemp(join(parent, 'test-clis-'));
  const server = join(dir, 'server.mjs');
  const [updater] = await Promise.all([
    buildCli({ outfile: join(dir, 'updater.mjs') }),
    build({
      entryPoints: [SERVER_CLI_SOURCE],
      absWorkingDir: REPO_ROOT,
      bundle: true,
      packages: 'external',
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile: server,
      logLevel: 'error',
    }),
  ]);
  project.provide('builtClis', { updater: launcherOf(updater), server });
  return () => rm(dir, { recursive: true, force: true });
}
