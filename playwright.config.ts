import { defineConfig } from '@playwright/test';
import { findChromium, missingToolMessage } from './scripts/test-tools.mjs';

/**
 * E2e of the desktop window in the Chromium scripts/test-tools.mjs finds (CHROMIUM_PATH, Debian's
 * /usr/bin/chromium, or one Playwright downloaded); `npm test` sets it up first
 * (scripts/test-setup.mjs). The renderer is served from loopback and driven by the test bridge
 * (test/helpers/test-bridge.ts), which runs the real core against the real companion server.
 * scripts/ci-summary.mjs reads the JSON report.
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

const chromium = findChromium();
if (chromium === undefined || chromium.broken === true)
  throw new Error(missingToolMessage('chromium'));

export default defineConfig({
  testDir: 'test/e2e',
  outputDir: 'test-results/playwright-artifacts',
  globalSetup: './test/e2e/global-setup',
  // package.json "imports" names for Playwright's loader (see the file).
  tsconfig: './test/e2e/tsconfig.playwright.json',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  forbidOnly: true,
  reporter: [['list'], ['json', { outputFile: 'test-results/playwright.json' }]],
  use: {
    headless: true,
    // Fixed locale and zone: the window's "as of 14:03:12" and "1,234" are then the same here
    // and on CI.
    locale: 'en-US',
    timezoneId: 'UTC',
    screenshot: 'only-on-failure',
    trace: 'off',
    launchOptions: { executablePath: chromium.path, args: CHROMIUM_ARGS },
  },
  projects: [
    { name: 'chromium', use: { browserName: 'chromium', viewport: { width: 380, height: 560 } } },
  ],
});
