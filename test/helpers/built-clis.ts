/**
 * The two command lines the suites run as child processes, bundled once per vitest run instead
 * of compiled by tsx in every child: the updater CLI exactly as `npm run updater` and the
 * package ship it (scripts/build-cli.mjs), and the server CLI (server/src/cli/main.ts) bundled
 * the same way with its npm dependencies left as imports. A tsx start costs seconds of
 * TypeScript compilation on a loaded 2-core machine; a bundle starts in a fraction of that
 * (README.md §Tests and benchmarks). vitest's global set-up (test/helpers/vitest-global-setup.ts)
 * builds them and hands their paths to the tests; outside vitest, or with
 * UPDATER_TEST_FROM_SOURCE=1, these fall back to the sources through tsx.
 */
import { join, resolve } from 'node:path';
import { inject } from 'vitest';

const REPO_ROOT = resolve(import.meta.dirname, '../..');
export const UPDATER_CLI_SOURCE = join(REPO_ROOT, 'src/cli/main.ts');
export const SERVER_CLI_SOURCE = join(REPO_ROOT, 'server/src/cli/main.ts');

export interface BuiltClis {
  /** The updater's launcher (updater.cjs), run by plain node. */
  readonly updater: string;
  /** The server CLI bundle (server.mjs), run by plain node. */
  readonly server: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    builtClis: BuiltClis;
  }
}

function built(): BuiltClis | undefined {
  if (process.env['UPDATER_TEST_FROM_SOURCE'] === '1') return undefined;
  try {
    return inject('builtClis');
  } catch {
    return undefined; // not in a vitest worker
  }
}

/** Node's arguments that start the updater CLI (append the CLI's own). */
export function updaterCliArgv(): string[] {
  const clis = built();
  return clis === undefined ? ['--import', 'tsx', UPDATER_CLI_SOURCE] : [clis.updater];
}

/** Node's arguments that start the server CLI (append the CLI's own). */
export function serverCliArgv(): string[] {
  const clis = built();
  return clis === undefined ? ['--import', 'tsx', SERVER_CLI_SOURCE] : [clis.server];
}
