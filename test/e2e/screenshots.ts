// Screenshots of the e2e runs go under test-results/; with UPDATE_SCREENSHOT=1 the README's
// docs/screenshot.png is refreshed from the named one (kept out of normal runs so the tracked
// file does not churn).
import { copyFile, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Page } from '@playwright/test';

const ROOT = resolve(import.meta.dirname, '../..');
export const SCREENSHOT_DIR = join(ROOT, 'test-results', 'screenshots');

/** Saves test-results/screenshots/<name>.png and returns its path. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  if (process.env['UPDATE_SCREENSHOT'] === '1' && name === 'desktop-ranking-light') {
    await copyFile(path, join(ROOT, 'docs', 'screenshot.png'));
  }
  return path;
}
