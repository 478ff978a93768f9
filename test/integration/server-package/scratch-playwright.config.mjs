// The scratch project's Playwright config: the Chromium the repository's tests use.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testMatch: '*.spec.mjs',
  workers: 1,
  reporter: 'list',
  use: {
    headless: true,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH,
      args: ['--headless', '--no-sandbox', '--disable-gpu'],
    },
  },
});
