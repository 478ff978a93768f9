// Screenshots of the e2e runs go under test-results/screenshots/ (every state the tests
// visit); with UPDATE_SCREENSHOT=1 the main ones are copied into docs/ as well (kept out of
// normal runs so the tracked files do not churn): docs/screenshot.png for the README and
// docs/screenshots/<name>.png for docs/DESKTOP.md.
import { copyFile, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Page } from '@playwright/test';

const ROOT = resolve(import.meta.dirname, '../..');
export const SCREENSHOT_DIR = join(ROOT, 'test-results', 'screenshots');

/** The states docs/DESKTOP.md shows. */
const DOCS_SCREENSHOTS: ReadonlySet<string> = new Set([
  'widget-ranking-dark',
  'widget-offline',
  'widget-forced-colors',
  'widget-zoom-200-top',
  'widget-bidi-name',
  'settings',
  'settings-invalid',
]);

/** Saves test-results/screenshots/<name>.png and returns its path. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  if (process.env['UPDATE_SCREENSHOT'] === '1') {
    if (name === 'desktop-ranking-light')
      await copyFile(path, join(ROOT, 'docs', 'screenshot.png'));
    if (DOCS_SCREENSHOTS.has(name)) {
      await mkdir(join(ROOT, 'docs', 'screenshots'), { recursive: true });
      await copyFile(path, join(ROOT, 'docs', 'screenshots', `${name}.png`));
    }
  }
  return path;
}
