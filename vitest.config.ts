import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
    // e2e (Playwright) and bench run through their own commands.
    exclude: ['test/e2e/**', 'bench/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The updater and server CLIs, bundled once for the suites that spawn them.
    globalSetup: ['test/helpers/vitest-global-setup.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
  },
});
