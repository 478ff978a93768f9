import { defineConfig } from '@playwright/test';

/**
 * E2e of the desktop window in Debian's Chromium (never `playwright install`). The renderer is
 * served from loopback and driven by the test bridge (test/helpers/test-bridge.ts), which runs
 * the real core against the real companion server. scripts/ci-summary.mjs reads the JSON report.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export default defineConfig({
  testDir: 'test/e2e',
  outputDir: 'test-results/playwright-artifacts',
  globalSetup: './test/e2e/global-setup.ts',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  forbidOnly: true,
  reporter: [['list'], ['json', { outputFile: 'test-results/playwright.json' }]],
  use: {
    headless: true,
    screenshot: 'only-on-failure',
    trace: 'off',
    launchOptions: { executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS },
  },
  projects: [
    { name: 'chromium', use: { browserName: 'chromium', viewport: { width: 380, height: 560 } } },
  ],
});
