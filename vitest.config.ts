import { defineConfig } from 'vitest/config';

/**
 * Unit test files that replace modules (vi.mock of electron and friends) or set process-wide
 * state: each runs in a fresh process, as the integration suites do.
 */
const OWN_PROCESS = [
  'test/unit/main/**/*.test.ts',
  'test/unit/preload/**/*.test.ts',
  // Replaces node:fs/promises to log the order of a commit's file calls.
  'test/unit/node/store/file-store-commit-order.test.ts',
];

export default defineConfig({
  test: {
    // e2e (Playwright) and bench run through their own commands.
    exclude: ['test/e2e/**', 'bench/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The updater and server CLIs, bundled once for the suites that spawn them.
    globalSetup: ['test/helpers/vitest-global-setup.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: ['test/e2e/**', 'bench/**', 'node_modules/**', ...OWN_PROCESS],
          // The unit files share their worker processes: about half the time and CPU of a
          // process per file (README.md §Tests and benchmarks). A unit file that cannot share
          // (a module mock, process-wide state) belongs in OWN_PROCESS above.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          include: ['test/integration/**/*.test.ts', ...OWN_PROCESS],
        },
      },
    ],
  },
});
